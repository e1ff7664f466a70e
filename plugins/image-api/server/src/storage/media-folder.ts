/**
 * Media Library folders of API uploads (docs/api.md, "Albums"):
 * - the plugin's folder ("API uploads"), found or created once per process without races:
 *   concurrent creators (requests, or several instances) retry on the unique `pathId` and converge on
 *   the oldest folder of that name;
 * - a key's destination: the folder its entry names, else the plugin's;
 * - albums: the destination and the folders below it, but for another key's tree: a folder below
 *   the destination that another key names as its own destination, and everything below that, are
 *   that key's (a key whose destination is "API uploads" never reaches into the folder of a key
 *   below it). A folder is below another when its `path` (Strapi's chain of path ids, `/1/4/9`)
 *   extends the other's; paths are read at each request, so a folder an editor moves takes its
 *   place at once.
 */
import type { Core } from '@strapi/strapi';
import { API_KEY_UID, FILE_UID, FOLDER_UID } from '../config/constants';
import { getConfig } from '../get-service';
import { errors } from '../http/api-error';

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

/** The paths from just below `base` down to `folder` itself (`/1/4` to `/1/4/9/12`: `/1/4/9`, `/1/4/9/12`). */
export const pathsBelow = (base: MediaFolder, folder: MediaFolder): string[] => {
  const steps = folder.path.slice(base.path.length).split('/').filter(Boolean);
  return steps.map((_, i) => `${base.path}/${steps.slice(0, i + 1).join('/')}`);
};

/** Link tables, as Strapi's metadata names them (the owning side's). */
interface JoinTable {
  name: string;
  joinColumn: { name: string };
  inverseJoinColumn: { name: string };
}

/** Rows of album ids whose files are counted in one query (bind variables stay far below every database's limit). */
const COUNT_CHUNK = 500;

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

  const knex = () => strapi.db.connection;
  const folderTable = () => strapi.db.metadata.get(FOLDER_UID).tableName;
  const joinTable = (uid: string, attribute: string) =>
    (strapi.db.metadata.get(uid).attributes[attribute] as unknown as { joinTable: JoinTable }).joinTable;
  /** The key → folder link table (a key's destination). */
  const keyFolderLink = () => joinTable(API_KEY_UID, 'folder');

  /** Destinations of keys among `paths` (the unique index on `path`; a link per key that names a folder). */
  const destinationsAmong = async (paths: string[]): Promise<string[]> => {
    if (paths.length === 0) return [];
    const link = keyFolderLink();
    const rows: Array<{ path: string }> = await knex()(`${folderTable()} as f`)
      .distinct('f.path')
      .join(`${link.name} as l`, `l.${link.inverseJoinColumn.name}`, 'f.id')
      .whereIn('f.path', paths);
    return rows.map((row) => row.path);
  };

  /** Destinations of keys strictly below `base` (at most one row per key that names a folder). */
  const destinationsBelow = async (base: MediaFolder): Promise<Set<string>> => {
    const link = keyFolderLink();
    const rows: Array<{ path: string }> = await knex()(`${folderTable()} as f`)
      .distinct('f.path')
      .join(`${link.name} as l`, `l.${link.inverseJoinColumn.name}`, 'f.id')
      .where('f.path', 'like', `${base.path}/%`);
    return new Set(rows.map((row) => row.path));
  };

  /** Files in each folder, by folder id (the file → folder link table, which the file side owns). */
  const fileCounts = async (ids: number[]): Promise<Map<number, number>> => {
    const link = joinTable(FILE_UID, 'folder');
    const counts = new Map<number, number>();
    for (let at = 0; at < ids.length; at += COUNT_CHUNK) {
      const rows: Array<{ folder: number; files: number | string }> = await knex()(link.name)
        .select({ folder: link.inverseJoinColumn.name })
        .count({ files: '*' })
        .whereIn(link.inverseJoinColumn.name, ids.slice(at, at + COUNT_CHUNK))
        .groupBy(link.inverseJoinColumn.name);
      for (const row of rows) counts.set(Number(row.folder), Number(row.files));
    }
    return counts;
  };

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
     * Where an upload of this key goes: `albumId` when it is the key's destination or below it and
     * in no other key's tree, else the error table's 160 (one answer for every wrong value, so
     * folders outside are not revealed); the destination itself when no album is asked. Two lookups
     * by primary key and one by the unique `path`, whatever the size of the library.
     */
    async uploadFolder(keyFolderId: number | null, albumId: number | null): Promise<MediaFolder> {
      const destination = await this.destinationOf(keyFolderId);
      if (albumId === null) return destination;
      const album = await findById(albumId);
      if (!album || !isWithin(album, destination)) throw errors.invalidAlbum();
      if ((await destinationsAmong(pathsBelow(destination, album))).length > 0) throw errors.invalidAlbum();
      return album;
    },

    /**
     * The albums of a key, exactly what `uploadFolder` accepts: its destination and every folder below
     * it but other keys' trees, with their file counts (counted for these folders only). Found by
     * Strapi's path; each named by the names along it, its ancestors' included.
     */
    async albumsOf(keyFolderId: number | null): Promise<Album[]> {
      const destination = await this.destinationOf(keyFolderId);
      const table = folderTable();
      const [below, others] = await Promise.all([
        knex()(table).select('id', 'name', 'path').where('path', destination.path).orWhere('path', 'like', `${destination.path}/%`).orderBy('path') as Promise<
          Array<{ id: number; name: string; path: string }>
        >,
        destinationsBelow(destination),
      ]);
      const rows = below.filter((row) => !pathsBelow(destination, row).some((path) => others.has(path)));
      const counts = await fileCounts(rows.map((row) => row.id));
      // Names of the destination's ancestors, for paths that read from the top of the Media Library.
      const ancestorIds = destination.path.split('/').filter(Boolean).slice(0, -1).map(Number);
      const ancestors: Array<{ path_id: number; name: string }> = ancestorIds.length ? await knex()(table).select('path_id', 'name').whereIn('path_id', ancestorIds) : [];
      const nameOf = new Map<string, string>(ancestors.map((a) => [String(a.path_id), a.name]));
      for (const row of rows) nameOf.set(row.path.split('/').pop()!, row.name);
      const readable = (path: string) => `/${path.split('/').filter(Boolean).map((id) => nameOf.get(id) ?? id).join('/')}`;
      return rows.map((row) => ({ id: row.id, name: row.name, path: readable(row.path), imageCount: counts.get(row.id) ?? 0 }));
    },
  };
};
