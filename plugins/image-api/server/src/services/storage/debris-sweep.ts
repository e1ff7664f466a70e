/**
 * The boot sweep: what a crash can leave behind is removed when the app starts again. Provider files
 * of uploads that never got their records (see journal.ts), and per-request temp
 * folders. Only debris older than `sweepAfterMs` is touched, so uploads in flight on other instances
 * are safe.
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../../get-service';
import { sweepTempFolders, tempRoot } from '../runtime/temp-folders';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async run(): Promise<{ uploads: number; tempFolders: number }> {
    const { sweepAfterMs: olderThanMs, tmpDir } = getConfig(strapi);
    const tmpRoot = tempRoot(tmpDir);
    const [uploads, tempFolders] = await Promise.all([
      getService(strapi, 'journal').sweep(olderThanMs),
      sweepTempFolders(tmpRoot, olderThanMs),
    ]);
    if (uploads || tempFolders) {
      strapi.log.info(`image-api: swept ${uploads} unfinished upload(s) and ${tempFolders} temp folder(s)`);
    }
    return { uploads, tempFolders };
  },
});
