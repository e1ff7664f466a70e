/**
 * Direct image URLs served by the app itself (the local provider's `/uploads/`; docs/api.md, "Direct URLs"): an
 * API image's original and variants are immutable (stored names are never reused), so they are
 * answered with long-lived caching headers, from memory when hot (delivery/hot-file-cache.ts). A deleted or
 * expired image's files are gone from the instant it expires, not only once the sweep removed them.
 * Other files of `/uploads/` (Media Library uploads) are not ours: Strapi serves them, with the
 * headers delivery/image-delivery.ts adds (delivery/inert-files.ts).
 */
import fs from 'fs';
import path from 'path';
import type { Core } from '@strapi/strapi';
import { getService } from '../get-service';
import { fileEtag, type ImageCaching, type ImmutableBytes } from './immutable-answer';
import { isKeptResultFile } from '../images/naming';
import { imageNameOf } from './image-sources';

/** `gone`: a deleted, expired or missing file (404, no-store); `not-ours`: another Media Library file. */
export type DirectFile = (ImmutableBytes & { of: ImageCaching }) | 'gone' | 'not-ours';

/** A stored file name, nothing else: no path separators, no dot files. */
export const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const folder = () => path.join(strapi.dirs.static.public, 'uploads');

  const statOf = (file: string) => {
    try {
      // Synchronous on purpose: a stat of a cached inode takes microseconds, less than a round trip
      // to libuv's thread pool, and it is what keeps a deleted file from being served from memory.
      return fs.statSync(file);
    } catch {
      return null;
    }
  };

  const journalNames = async (imageName: string | null) => imageName !== null && (await getService(strapi, 'journal').holds(imageName));

  return {
    /** `fileName`: a stored name as the path spells it (delivery/uploads-path.ts: other spellings never get here). */
    async find(fileName: string): Promise<DirectFile> {
      // A path in disguise names nothing here (the middleware lets none through; this holds for any caller).
      if (/[/\\\0]|^\./.test(fileName)) return 'gone';
      const file = path.join(folder(), fileName);
      // Not an API image's name: a Media Library file, if it is there.
      if (!FILE_NAME.test(fileName)) return statOf(file)?.isFile() ? 'not-ours' : 'gone';
      // A kept transformation result is served by its transformation URL only (that is where its
      // image's expiry and deletion are checked); its stored file is no URL of this service.
      if (isKeptResultFile(fileName)) return 'gone';
      const sources = getService(strapi, 'image-sources');
      const named = await sources.byFileName(fileName);
      const stat = statOf(file);
      // A folder is no file (Strapi's static serving would answer with an index.html in it).
      if (!named && !stat?.isFile()) return 'gone';
      // A file the journal names and no record holds: an image being deleted (its record goes before
      // its files), an upload not yet recorded, a crash's debris the sweep will take. Not a Media
      // Library file to serve (one indexed lookup, for these names only).
      if (!named) return (await journalNames(imageNameOf(fileName))) ? 'gone' : 'not-ours';
      if (!sources.isLive(named.image) || !stat?.isFile()) return 'gone';

      const etag = fileEtag(stat.mtimeMs, stat.size);
      const described = { size: stat.size, type: named.file.mime, etag, lastModified: stat.mtime, of: named.image };
      const hot = getService(strapi, 'hot-files');
      const key = `file:${fileName}:${etag}`;
      const cached = hot.get(key);
      if (cached) return { ...described, bytes: cached.bytes };
      // Read whole only to be kept hot (then every reader shares those bytes); else streamed.
      if (!hot.fits(stat.size)) return { ...described, bytes: null, path: file };
      const bytes = await fs.promises.readFile(file);
      hot.keep(key, { bytes, type: described.type, etag, lastModified: described.lastModified }, named.image.name);
      return { ...described, bytes };
    },
  };
};
