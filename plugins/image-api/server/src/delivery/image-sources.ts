/**
 * Which of this service's images a served file or a transformation source is (docs/api.md, "Serving images"): a
 * stored file name (`<name>.<ext>`, `<name>.th.<ext>`, `<name>.md.<ext>`) → the image, the file it
 * names, its focal point, expiry and whether moderation holds it. One lookup through the unique index on the image's name,
 * remembered for SOURCE_TTL_MS: a hot image costs no query per request. Any change to an image on
 * this instance (stored, deleted, edited: storage/image-changes.ts) forgets it at once; other
 * instances see it within the TTL.
 */
import type { Core } from '@strapi/strapi';
import { LRUCache } from 'lru-cache';
import { IMAGE_UID, SOURCE_TTL_MS } from '../config/constants';
import { getService } from '../get-service';
import { cacheTagsOf } from '../purge/cache-tags';

const SOURCES_REMEMBERED = 10_000;

/** `<name>[.th|.md].<ext>`: the stored files of an API image (images/naming.ts). */
const STORED_FILE = /^(.+?)(?:\.(th|md))?\.([A-Za-z0-9]+)$/;

/** The image name a stored file name belongs to (`cat-Ab12.md.jpg` → `cat-Ab12`); null when it is none. */
export const imageNameOf = (fileName: string): string | null => STORED_FILE.exec(fileName)?.[1] ?? null;

export interface StoredFile {
  hash: string;
  ext: string;
  mime: string;
  width: number;
  height: number;
  /** As the provider recorded it: `/uploads/...` for the local one, absolute for S3. */
  url: string;
}

export interface SourceImage {
  /** The image's stored name. */
  name: string;
  /** The cache tags its answers carry (purge/cache-tags.ts). */
  tags: string[];
  expiresAt: Date | null;
  /** Held by moderation until an admin approves it (docs/moderation.md): answered as unknown. */
  held: boolean;
  createdAt: Date;
  original: StoredFile;
  /** By variant key of the file entry's `formats` (`thumbnail`, `medium`). */
  variants: Record<string, StoredFile>;
  /** The Media Library focal point, as fractions of width and height; null: none set. */
  focalPoint: { x: number; y: number } | null;
}

export interface NamedFile {
  image: SourceImage;
  file: StoredFile;
}

const asStored = (file: Record<string, unknown>): StoredFile => ({
  hash: String(file.hash),
  ext: String(file.ext),
  mime: String(file.mime),
  width: Number(file.width),
  height: Number(file.height),
  url: String(file.url),
});

function focalPointOf(value: unknown): SourceImage['focalPoint'] {
  const point = typeof value === 'string' ? safeJson(value) : value;
  if (!point || typeof point !== 'object') return null;
  const { x, y } = point as { x?: unknown; y?: unknown };
  if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  // Strapi keeps percents (0-100).
  return { x: Math.min(1, Math.max(0, x / 100)), y: Math.min(1, Math.max(0, y / 100)) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const remembered = new LRUCache<string, { image: SourceImage | null }>({ max: SOURCES_REMEMBERED, ttl: SOURCE_TTL_MS });
  const forget = (names: string[]) => {
    for (const name of names) remembered.delete(name);
  };
  // Every change, a new upload's too: a lookup of its name made before it existed is not reused.
  getService(strapi, 'image-changes').subscribe(({ names }) => forget(names));

  async function lookUp(name: string): Promise<SourceImage | null> {
    const record = await strapi.db.query(IMAGE_UID).findOne({
      where: { name },
      select: ['name', 'id_encoded', 'expires_at', 'moderation', 'createdAt'],
      populate: { file: { select: ['hash', 'ext', 'mime', 'width', 'height', 'url', 'formats', 'focalPoint'] } },
    });
    if (!record?.file) return null;
    const variants: Record<string, StoredFile> = {};
    for (const [key, format] of Object.entries((record.file.formats ?? {}) as Record<string, Record<string, unknown>>)) variants[key] = asStored(format);
    return {
      name: record.name,
      tags: cacheTagsOf(record.id_encoded),
      expiresAt: record.expires_at ? new Date(record.expires_at) : null,
      held: record.moderation === 'held',
      createdAt: new Date(record.createdAt),
      original: asStored(record.file),
      variants,
      focalPoint: focalPointOf(record.file.focalPoint),
    };
  }

  /** The image named `name`, expired or held or not (see isLive); unknown: null. */
  async function byName(name: string): Promise<SourceImage | null> {
    let entry = remembered.get(name);
    if (!entry) {
      entry = { image: await lookUp(name) };
      remembered.set(name, entry);
    }
    return entry.image;
  }

  /** The image and file a stored file name names, expired or not; null when it is no API image's. */
  async function byFileName(fileName: string): Promise<NamedFile | null> {
    const name = imageNameOf(fileName);
    if (!name) return null;
    const image = await byName(name);
    if (!image) return null;
    const file = [image.original, ...Object.values(image.variants)].find(({ hash, ext }) => `${hash}${ext}` === fileName);
    return file ? { image, file } : null;
  }

  /** Served: not expired at `now`, not held. */
  const isLive = (image: SourceImage, now = Date.now()) => !image.held && (image.expiresAt === null || image.expiresAt.getTime() > now);
  const live = (found: NamedFile | null) => (found && isLive(found.image) ? found : null);
  const absolute = (url: string) => getService(strapi, 'public-url').fileUrl(url);

  return {
    byName,
    byFileName,
    /** What is remembered of the image named `name`, without a lookup (undefined: nothing fresh). */
    peek: (name: string): SourceImage | null | undefined => remembered.get(name)?.image,

    isLive,

    /**
     * A live transformation source (docs/api.md, "Transformations"): `local:///{file name}`, or the direct URL of the
     * original or a variant, exactly as this service hands it out. Nothing else is ever fetched.
     */
    async bySourceUrl(url: string): Promise<NamedFile | null> {
      const local = /^local:\/\/\/([^/]+)$/.exec(url);
      if (local) return live(await byFileName(local[1]));
      const fileName = url.split(/[?#]/)[0].split('/').pop() ?? '';
      let decoded = fileName;
      try {
        decoded = decodeURIComponent(fileName);
      } catch {
        return null;
      }
      const found = await byFileName(decoded);
      return found && absolute(found.file.url) === url ? live(found) : null;
    },

    /** Forgets what was looked up of these images (they changed: see the subscription above). */
    forget,
  };
};
