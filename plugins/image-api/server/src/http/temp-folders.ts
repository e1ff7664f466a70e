/**
 * Per-request temp folders (URL downloads) under one root: made on demand, removed when the request
 * ends; and the sweep of folders a crash left behind.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';

/** Where per-request folders go unless the `tmpDir` option says otherwise. */
export const DEFAULT_TMP_ROOT = path.join(os.tmpdir(), 'strapi-image-api');

const FOLDER_PREFIX = 'req-';

export const tempRoot = (configured: string | null) => configured ?? DEFAULT_TMP_ROOT;

/**
 * Makes request folders under a root. The root is made once, not on every request, and made again
 * if it went away meanwhile.
 */
export function createTempFolders() {
  const roots = new Map<string, Promise<unknown>>();
  const makeRoot = (root: string) => {
    let making = roots.get(root);
    if (!making) {
      // A failure is not kept: the next request tries again.
      making = fs.promises.mkdir(root, { recursive: true }).catch((error) => {
        roots.delete(root);
        throw error;
      });
      roots.set(root, making);
    }
    return making;
  };

  return {
    /** A new, empty folder of its own under `root`. */
    async make(root: string): Promise<string> {
      await makeRoot(root);
      try {
        return await fs.promises.mkdtemp(path.join(root, FOLDER_PREFIX));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        roots.delete(root);
        await makeRoot(root);
        return fs.promises.mkdtemp(path.join(root, FOLDER_PREFIX));
      }
    },

    async remove(folder: string): Promise<void> {
      await fs.promises.rm(folder, { recursive: true, force: true });
    },
  };
}

/** Removes request folders under `root` older than `olderThanMs` (a crash left them); returns how many. */
export async function sweepTempFolders(root: string, olderThanMs: number): Promise<number> {
  const entries = await fs.promises.readdir(root, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(FOLDER_PREFIX)) continue;
    const full = path.join(root, entry.name);
    const stat = await fs.promises.stat(full).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs >= olderThanMs) {
      await fs.promises.rm(full, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
