/**
 * Stores an accepted upload: the original and both variants through the configured upload provider
 * (local disk, S3, ...), then the `plugin::upload.file` entry (variants recorded in `formats`, so the
 * Media Library previews it and deleting it there deletes every file) and the image record, in one
 * transaction. Complete or absent: if anything fails, what was written is removed again.
 */
import { Readable } from 'stream';
import type { Core } from '@strapi/strapi';
import type { EncodedImage, ImageSet } from './image-variants';
import type { StoredImage, StoredVariant } from './image-json';
import { EXTENSION_BY_FORMAT, MIME_BY_FORMAT } from './naming';

const IMAGE_UID = 'plugin::image-api.image';
const PENDING_UID = 'plugin::image-api.pending-upload';

export interface NewImage {
  set: ImageSet;
  idEncoded: string;
  /** Stored base name, unique. */
  name: string;
  md5: string;
  originalFilename: string;
  title: string | null;
  description: string | null;
  nsfw: boolean;
  apiKeyId: number | null;
  /** The admin user the key belongs to: the image is theirs ("created by" in the Media Library). */
  ownerId: number | null;
  /** The users-permissions user the key belongs to: recorded on the image record. */
  ownerUserId: number | null;
  /** What the original's EXIF said, when `keepExif` is on. */
  originalExif: Record<string, unknown> | null;
}

/** The file object the upload provider API works with. */
export interface ProviderFile {
  name: string;
  hash: string;
  ext: string;
  mime: string;
  size: number;
  sizeInBytes: number;
  width: number;
  height: number;
  url?: string;
  provider_metadata?: Record<string, unknown>;
  getStream: () => Readable;
  buffer?: Buffer;
}

const kilobytes = (bytes: number) => Math.round((bytes / 1000) * 100) / 100;

function providerFile(image: EncodedImage, hash: string): ProviderFile {
  const ext = `.${EXTENSION_BY_FORMAT[image.format]}`;
  return {
    name: `${hash}${ext}`,
    hash,
    ext,
    mime: MIME_BY_FORMAT[image.format],
    size: kilobytes(image.buffer.length),
    sizeInBytes: image.buffer.length,
    width: image.width,
    height: image.height,
    getStream: () => Readable.from(image.buffer),
  };
}

/** The shape Strapi keeps in `formats[key]`. */
const formatEntry = ({ getStream, ...file }: ProviderFile) => ({ ...file, path: null });

export default ({ strapi }: { strapi: Core.Strapi }) => {
  /**
   * Writes one file through the configured provider. The bytes are in memory already, so a provider
   * with a buffer API gets them as they are (the local one: one writeFile); stream-only providers
   * get a stream, through the upload plugin's own provider service.
   */
  const write = async (file: ProviderFile, bytes: Buffer) => {
    const provider = strapi.plugin('upload').provider;
    if (typeof provider.upload === 'function') {
      await provider.upload(Object.assign(file, { buffer: bytes }));
      delete file.buffer;
    } else {
      await strapi.plugin('upload').service('provider').upload(file);
    }
  };
  const providerName = (): string => strapi.config.get('plugin::upload.provider') ?? 'local';

  const absolute = (url: string) => {
    if (/^https?:\/\//i.test(url)) return url;
    const base: string = strapi.plugin('image-api').service('public-url').base();
    return `${base}${url.startsWith('/') ? '' : '/'}${url}`;
  };

  const variantView = (file: ProviderFile, image: EncodedImage): StoredVariant => ({
    name: file.hash,
    extension: file.ext.slice(1),
    mime: file.mime,
    width: image.width,
    height: image.height,
    size: image.buffer.length,
    bits: image.bits,
    channels: image.channels,
    url: absolute(file.url ?? ''),
  });

  async function removeFromProvider(files: ProviderFile[]) {
    await Promise.allSettled(files.map((file) => strapi.plugin('upload').provider.delete(file)));
  }

  return {
    async store(upload: NewImage): Promise<StoredImage> {
      const { set } = upload;
      const original = providerFile(set.original, upload.name);
      const thumb = providerFile(set.thumb, `${upload.name}.th`);
      const medium = providerFile(set.medium, `${upload.name}.md`);
      const all = [original, thumb, medium];
      const bytes = [set.original.buffer, set.thumb.buffer, set.medium.buffer];

      const records = strapi.plugin('image-api').service('upload-records');
      // Journal first: if the process dies before the records are committed, the sweep knows the files.
      const pendingId = await records.journal(upload.name, all.map(({ hash, ext }) => ({ hash, ext })));
      const forgetPending = (trx?: unknown) => records.forget(pendingId, trx);
      const written: ProviderFile[] = [];
      try {
        // Settle every write before judging, so a failure never races a write still under way.
        const results = await Promise.allSettled(all.map((file, i) => write(file, bytes[i])));
        results.forEach((result, i) => result.status === 'fulfilled' && written.push(all[i]));
        const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
        if (failed) throw failed.reason;

        // The folder is checked every few seconds; if an editor deleted it just now, the first
        // attempt fails on it and the second finds or recreates it.
        const now = new Date();
        const record = (refreshFolder: boolean) =>
          strapi.db.transaction(async ({ trx }) => {
            const folder = await strapi.plugin('image-api').service('media-folder').current(refreshFolder);
            const fileId = await records.createFile(
              trx,
              {
                data: {
                  name: upload.originalFilename,
                  alternativeText: upload.title,
                  caption: upload.description,
                  hash: original.hash,
                  ext: original.ext,
                  mime: original.mime,
                  size: original.size,
                  width: original.width,
                  height: original.height,
                  url: original.url,
                  provider: providerName(),
                  provider_metadata: original.provider_metadata ?? null,
                  // `thumbnail` is the key the Media Library previews.
                  formats: { thumbnail: formatEntry(thumb), medium: formatEntry(medium) },
                  folderPath: folder.path,
                  publishedAt: now,
                },
                folderId: folder.id,
                userId: upload.ownerId,
              },
              now
            );
            await forgetPending(trx);
            if (upload.apiKeyId !== null) {
              await strapi.plugin('image-api').service('api-keys').recordUse(upload.apiKeyId, trx);
            }
            await records.createImage(
              trx,
              {
                data: {
                  id_encoded: upload.idEncoded,
                  name: upload.name,
                  title: upload.title,
                  description: upload.description,
                  md5: upload.md5,
                  views: 0,
                  nsfw: upload.nsfw,
                  original_filename: upload.originalFilename,
                  original_exifdata: upload.originalExif,
                  publishedAt: now,
                },
                fileId,
                apiKeyId: upload.apiKeyId,
                ownerId: upload.ownerId,
                ownerUserId: upload.ownerUserId,
              },
              now
            );
          });
        await record(false).catch(() => record(true));

        return {
          ...variantView(original, set.original),
          idEncoded: upload.idEncoded,
          md5: upload.md5,
          title: upload.title,
          description: upload.description,
          nsfw: upload.nsfw,
          views: 0,
          originalFilename: upload.originalFilename,
          originalExif: upload.originalExif,
          createdAt: now,
          storage: providerName(),
          viewerUrl: strapi.plugin('image-api').service('public-url').viewer(upload.idEncoded),
          thumb: variantView(thumb, set.thumb),
          medium: variantView(medium, set.medium),
        };
      } catch (error) {
        await removeFromProvider(written);
        await forgetPending().catch(() => undefined);
        throw error;
      }
    },


    /**
     * Removes what a crash left: provider files of journalled uploads older than `olderThanMs` that
     * never got their records. Returns the number of uploads cleaned.
     */
    async sweep(olderThanMs: number): Promise<number> {
      const before = new Date(Date.now() - olderThanMs);
      const stale = await strapi.db.query(PENDING_UID).findMany({ where: { createdAt: { $lte: before } } });
      let cleaned = 0;
      for (const entry of stale) {
        const recorded = await strapi.db.query(IMAGE_UID).findOne({ where: { name: entry.name }, select: ['id'] });
        if (!recorded) {
          await removeFromProvider(entry.files as ProviderFile[]);
          cleaned++;
        }
        await strapi.db.query(PENDING_UID).delete({ where: { id: entry.id } });
      }
      return cleaned;
    },
  };
};
