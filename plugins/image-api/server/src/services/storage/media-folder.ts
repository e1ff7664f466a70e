/**
 * Media Library folders of API uploads (docs/api.md, "Albums"):
 * - the plugin's folder ("API uploads"), found or created once per process without races:
 *   concurrent creators (requests, or several instances) retry on the unique `pathId` and converge on
 *   the oldest folder of that name;
 * - a key's destination: the folder its entry names, else the plugin's;
 * - albums: the destination and the folders below it. A folder is below another when its `path`
 *   (Strapi's chain of path ids, `/1/4/9`) extends the other's.
 */
import type { Core } from '@strapi/strapi';
import { FILE_UID, FOLDER_UID } from '../../constants';
import { getConfig } from '../../get-service';
import { errors } from '../../http/api-error';

export interface MediaFolder {
  id: number;
  path: string;
}

export interface Album {
  id: number;
  name: string;
  /** Its place in the Media Library, by names: `/API uploads/Cats`. */
  path: string;
  /** Files in it (the Media Library's count: editors' own files there count too). */
  imageCount: number;
}

/** Whether `folder` is `base` or lies below it. */
export const isWithin = (folder: MediaFolder, base: MediaFolder) => folder.path === base.path || folder.path.startsWith(`${base.path}/`);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let pending: Promise<MediaFolder> | null = null;
  let checkedAt = 0;
  const CHECK_EVERY_MS = 5000;

  const findOldest = async (name: string): Promise<MediaFolder | null> => {
    const [folder] = await strapi.db.query(FOLDER_UID).findMany({
      where: { name, parent: null },
      orderBy: { id: 'asc' },
      limit: 1,
      select: ['id', 'path'],
    });
    return (folder as MediaFolder) ?? null;
  };

  const findOrCreate = async (name: string): Promise<MediaFolder> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await findOldest(name);
      if (existing) return existing;
      try {
        await strapi.plugin('upload').service('folder').create({ name, parent: null });
      } catch {
        // Another creator took the same pathId: look again.
      }
    }
    const folder = await findOldest(name);
    if (!folder) throw new Error(`Could not create the Media Library folder "${name}"`);
    return folder;
  };

  /** A folder by id (its primary key), or null. */
  const findById = async (id: number): Promise<MediaFolder | null> =>
    ((await strapi.db.query(FOLDER_UID).findOne({ where: { id }, select: ['id', 'path'] })) as MediaFolder | null) ?? null;

  return {
    /**
     * The plugin's folder, checked at most every 5 s to still exist (an editor may have deleted it, on
     * any instance; `refresh` forces the check): found again or recreated when gone.
     */
    async current(refresh = false): Promise<MediaFolder> {
      const folder = await this.get();
      if (!refresh && Date.now() - checkedAt < CHECK_EVERY_MS) return folder;
      const exists = await findById(folder.id);
      checkedAt = Date.now();
      return exists ? folder : this.get(true);
    },

    /** The plugin's folder, cached; `refresh` looks it up again. */
    async get(refresh = false): Promise<MediaFolder> {
      if (!pending || refresh) {
        pending = findOrCreate(getConfig(strapi).folderName).catch((error) => {
          pending = null;
          throw error;
        });
      }
      return pending;
    },

    /**
     * What to record an upload in, when `folder` failed it: the plugin's folder found or made again if
     * `folder` was it and an editor deleted it meanwhile; else `folder` itself.
     */
    async replacementFor(folder: MediaFolder): Promise<MediaFolder> {
      if (folder.id !== (await this.get()).id) return folder;
      return this.current(true);
    },

    /** A key's destination: the folder its entry names (if it still exists), else the plugin's. */
    async destinationOf(keyFolderId: number | null): Promise<MediaFolder> {
      const named = keyFolderId === null ? null : await findById(keyFolderId);
      return named ?? this.current();
    },

    /**
     * Where an upload of this key goes: `albumId` when it is the key's destination or below it, else
     * the error table's 160 (one answer for every wrong value, so folders outside are not revealed);
     * the destination itself when no album is asked.
     */
    async uploadFolder(keyFolderId: number | null, albumId: number | null): Promise<MediaFolder> {
      const destination = await this.destinationOf(keyFolderId);
      if (albumId === null) return destination;
      const album = await findById(albumId);
      if (!album || !isWithin(album, destination)) throw errors.invalidAlbum();
      return album;
    },

    /**
     * The albums of a key: its destination and every folder below it, with their file counts. Found by
     * Strapi's path (indexed); each named by the names along it, its ancestors' included.
     */
    async albumsOf(keyFolderId: number | null): Promise<Album[]> {
      const destination = await this.destinationOf(keyFolderId);
      const knex = strapi.db.connection;
      const table = strapi.db.metadata.get(FOLDER_UID).tableName;
      // The file → folder link table (the file side owns it).
      const link = (strapi.db.metadata.get(FILE_UID).attributes.folder as unknown as { joinTable: { name: string; inverseJoinColumn: { name: string } } }).joinTable;
      const rows: Array<{ id: number; name: string; path: string; image_count: number | string }> = await knex(`${table} as f`)
        .select('f.id', 'f.name', 'f.path')
        .select(knex(link.name).count('*').where(link.inverseJoinColumn.name, knex.ref('f.id')).as('image_count'))
        .where('f.path', destination.path)
        .orWhere('f.path', 'like', `${destination.path}/%`)
        .orderBy('f.path');
      // Names of the destination's ancestors, for paths that read from the top of the Media Library.
      const ancestorIds = destination.path.split('/').filter(Boolean).slice(0, -1).map(Number);
      const ancestors: Array<{ path_id: number; name: string }> = ancestorIds.length ? await knex(table).select('path_id', 'name').whereIn('path_id', ancestorIds) : [];
      const nameOf = new Map<string, string>(ancestors.map((a) => [String(a.path_id), a.name]));
      for (const row of rows) nameOf.set(row.path.split('/').pop()!, row.name);
      const readable = (path: string) => `/${path.split('/').filter(Boolean).map((id) => nameOf.get(id) ?? id).join('/')}`;
      return rows.map((row) => ({ id: row.id, name: row.name, path: readable(row.path), imageCount: Number(row.image_count) }));
    },
  };
};
