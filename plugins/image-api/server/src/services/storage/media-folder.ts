/**
 * The Media Library folder API uploads go to, found or created once per process without races:
 * concurrent creators (requests, or several instances) retry on the unique `pathId` and converge on
 * the oldest folder of that name.
 */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../../get-service';
import { FOLDER_UID } from '../../constants';


export interface MediaFolder {
  id: number;
  path: string;
}

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

  return {
    /**
     * The folder, checked at most every 5 s to still exist (an editor may have deleted it, on any
     * instance; `refresh` forces the check): found again or recreated when gone.
     */
    async current(refresh = false): Promise<MediaFolder> {
      const folder = await this.get();
      if (!refresh && Date.now() - checkedAt < CHECK_EVERY_MS) return folder;
      const exists = await strapi.db.query(FOLDER_UID).findOne({ where: { id: folder.id }, select: ['id'] });
      checkedAt = Date.now();
      return exists ? folder : this.get(true);
    },

    /** The folder, cached; `refresh` looks it up again. */
    async get(refresh = false): Promise<MediaFolder> {
      if (!pending || refresh) {
        const name: string = getConfig(strapi).folderName;
        pending = findOrCreate(name).catch((error) => {
          pending = null;
          throw error;
        });
      }
      return pending;
    },
  };
};
