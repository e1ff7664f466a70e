/**
 * Placeholders for images stored before they existed (docs/api.md, "The image object"): filled in once, in the
 * background after boot, from each image's `.md` variant (at most `mediumWidth` wide: cheap to decode),
 * a page at a time, within the image-work slots like any upload. New uploads get theirs from their
 * own pixels (images/image-variants.ts). When a pass finds nothing left, a flag in the plugin's store
 * says so, and later boots do not look again.
 */
import type { Core } from '@strapi/strapi';
import sharp from 'sharp';
import { IMAGE_UID, PLUGIN_ID } from '../config/constants';
import { placeholderOf } from '../images/placeholder';
import { runImageWork } from '../images/image-work';
import { HEIF_OPEN } from '../images/decoders/image-decoders';
import { getService } from '../get-service';

/** Images read per query. */
const PAGE = 50;

interface StoredFile {
  hash: string;
  ext: string;
  url: string;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const flag = () => strapi.store({ type: 'plugin', name: PLUGIN_ID, key: 'placeholders-filled' });
  let stopping = false;
  let running: Promise<number> | null = null;

  /** The placeholder of one stored image, from its medium (or its original when it has none). */
  async function placeholderFor(file: StoredFile & { formats?: Record<string, StoredFile> | null }) {
    const source = await getService(strapi, 'media-store').source(file.formats?.medium ?? file);
    return runImageWork(async () => {
      const { data, info } = await sharp(source, { failOn: 'none', ...HEIF_OPEN })
        .resize(100, 100, { fit: 'inside' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      return placeholderOf({ data, width: info.width, height: info.height, channels: info.channels });
    });
  }

  async function fill(): Promise<number> {
    if (await flag().get({})) return 0;
    let filled = 0;
    let failed = 0;
    for (let after = 0; !stopping; ) {
      const page = await strapi.db.query(IMAGE_UID).findMany({
        where: { id: { $gt: after }, placeholder: null },
        orderBy: { id: 'asc' },
        limit: PAGE,
        select: ['id'],
        populate: { file: { select: ['hash', 'ext', 'url', 'formats'] } },
      });
      if (page.length === 0) {
        if (failed === 0) await flag().set({ value: true });
        break;
      }
      for (const image of page) {
        if (stopping || !image.file) continue;
        try {
          const { thumbHash, dominantColor } = await placeholderFor(image.file);
          await strapi.db.query(IMAGE_UID).update({ where: { id: image.id }, data: { placeholder: thumbHash, dominant_color: dominantColor } });
          filled += 1;
        } catch (error) {
          // A file gone or unreadable: the image keeps no placeholder; the next boot tries again.
          failed += 1;
          strapi.log.warn(`image-api: no placeholder for image ${image.id}: ${(error as Error).message}`);
        }
      }
      after = page[page.length - 1].id;
    }
    return filled;
  }

  return {
    /** Starts the pass in the background; its result is logged. */
    start(): void {
      stopping = false;
      running ??= fill()
        .then((filled) => {
          if (filled > 0) strapi.log.info(`image-api: placeholders filled in for ${filled} existing images`);
          return filled;
        })
        .catch((error) => {
          strapi.log.warn(`image-api: placeholders not filled in: ${(error as Error).message}`);
          return 0;
        })
        .finally(() => {
          running = null;
        });
    },

    /** Waits for the pass under way, if any (tests, and the plugin's destroy, which stops it first). */
    async settled(): Promise<number> {
      return (await running) ?? 0;
    },

    async stop(): Promise<void> {
      stopping = true;
      await running;
    },
  };
};
