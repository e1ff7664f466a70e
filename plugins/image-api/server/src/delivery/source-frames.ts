/**
 * How many frames a transformation's source holds (docs/api.md, "Transformations"): an animated GIF
 * or WebP (its original, or its `.md` or `.th`, which keep every frame) is rendered animated, and its
 * format negotiated among those that animate. Read from the stored file's header (libvips reads a
 * GIF's frame count without decoding a frame) the first time a file is a source on this instance, then
 * remembered: a stored file's bytes never change under its name. Other types are stills.
 */
import type { Core } from '@strapi/strapi';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import { getService } from '../get-service';
import { errors } from '../http/api-error';
import { isFileMissing } from '../storage/media-store';
import type { StoredFile } from './image-sources';

/** Stored files whose frames are remembered. */
const FILES_REMEMBERED = 10_000;

/** The types that may hold an animation this service keeps (sharp reads only an APNG's first frame). */
const ANIMATED_TYPES = new Set(['image/gif', 'image/webp']);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Not subscribed to image changes (storage/image-changes.ts): a stored file name is never reused,
  // so its count never goes stale; a deleted file's count is a number that ages out of the LRU, and is
  // asked for only after its image's lookup found the file.
  const remembered = new LRUCache<string, Promise<number>>({ max: FILES_REMEMBERED });

  async function read(file: StoredFile): Promise<number> {
    const source = await getService(strapi, 'media-store')
      .source(file)
      .catch((error) => {
        // Deleted since it was looked up.
        throw isFileMissing(error) ? errors.imageNotFound() : error;
      });
    const { pages } = await sharp(source, { limitInputPixels: false }).metadata();
    return Math.max(1, pages ?? 1);
  }

  return {
    /** The frames of a stored file: 1 for a still. Throws ApiError 404 when the file is gone. */
    of(file: StoredFile): Promise<number> {
      if (!ANIMATED_TYPES.has(file.mime)) return Promise.resolve(1);
      const name = `${file.hash}${file.ext}`;
      let frames = remembered.get(name);
      if (!frames) {
        frames = read(file);
        remembered.set(name, frames);
        // A failed read is not remembered: the next request reads again.
        frames.catch(() => remembered.delete(name));
      }
      return frames;
    },
  };
};
