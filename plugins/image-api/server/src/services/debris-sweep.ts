/**
 * The boot sweep: what a crash can leave behind is removed when the app starts again. Provider files
 * of uploads that never got their records (see the pending-upload journal), and per-request temp
 * folders. Only debris older than `sweepAfterMs` is touched, so uploads in flight on other instances
 * are safe.
 */
import fs from 'fs';
import path from 'path';
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../get-service';
import { DEFAULT_TMP_ROOT } from '../middlewares/upload-body';

async function sweepTempFolders(root: string, olderThanMs: number): Promise<number> {
  const entries = await fs.promises.readdir(root, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith('req-')) continue;
    const full = path.join(root, entry.name);
    const stat = await fs.promises.stat(full).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs >= olderThanMs) {
      await fs.promises.rm(full, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async run(): Promise<{ uploads: number; tempFolders: number }> {
    const { sweepAfterMs: olderThanMs, tmpDir } = getConfig(strapi);
    const tmpRoot = tmpDir ?? DEFAULT_TMP_ROOT;
    const [uploads, tempFolders] = await Promise.all([
      getService(strapi, 'media-store').sweep(olderThanMs),
      sweepTempFolders(tmpRoot, olderThanMs),
    ]);
    if (uploads || tempFolders) {
      strapi.log.info(`image-api: swept ${uploads} unfinished upload(s) and ${tempFolders} temp folder(s)`);
    }
    return { uploads, tempFolders };
  },
});
