/**
 * Stores an accepted upload: the original and both variants through the configured upload provider
 * (local disk, S3, ...), then the `plugin::upload.file` entry (variants recorded in `formats`, so the
 * Media Library previews it and deleting it there deletes every file) and the image record, in one
 * transaction. Complete or absent: if anything fails, the upload's files are removed again, and the
 * journal row naming them stays until they really are gone. If the database goes away while the
 * records are written, the outcome is the debris sweep's to settle (see the catch below).
 */
import { promises as fsp } from 'fs';
import path from 'path';
import { Readable } from 'stream';
import type { ReadableStream as StreamWebReadable } from 'stream/web';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import type { EncodedImage, VariantSet } from '../images/image-variants';
import type { StoredImage, StoredVariant } from '../protocol/image-json';
import { EXTENSION_BY_FORMAT, MIME_BY_FORMAT, randomId } from '../images/naming';
import { getConfig, getService } from '../get-service';
import type { JournalledFile } from './journal';
import type { SizedFile } from './usage-tally';
import { deleteHashOf } from './image-records';
import { savedAnswer } from './duplicates';
import type { MediaFolder } from './media-folder';
import type { ModerationState } from '../config/constants';
import { transaction } from '../database/transaction';
import { retryTransient } from '../database/transient-errors';
import { isDatabaseUnavailable } from '../http/outages';
import { reusedBuffers, type ReusedBuffers } from './reused-buffers';
import { imageWorkSlots } from '../images/image-work';


export interface NewImage {
  variants: VariantSet;
  idEncoded: string;
  /** Stored base name, unique. */
  name: string;
  md5: string;
  originalFilename: string;
  /** The Media Library's name of the file (images/naming.ts, libraryName). */
  libraryName: string;
  title: string | null;
  description: string | null;
  nsfw: boolean;
  /** Moderation's verdict (moderation/screening.ts): the state, and the scores when classified. */
  moderation: { state: ModerationState; score: number | null; scores: object | null };
  apiKeyId: number | null;
  /** The key's name, for the upload's events (storage/media-events.ts); never the key. */
  keyName: string | null;
  /** The admin user the key belongs to: the image is theirs. */
  adminOwnerId: number | null;
  /** "Created by" in the Media Library: the key's owner, else the admin who issued the key. */
  createdByAdminId: number | null;
  /** The users-permissions user the key belongs to: recorded on the image record. */
  siteUserOwnerId: number | null;
  /** What the original's EXIF said, when `keepExif` is on. */
  originalExif: Record<string, unknown> | null;
  /** The Media Library folder it goes to (the key's, or an album). */
  folder: MediaFolder;
  /** Seconds until it expires; null: never. */
  expiresIn: number | null;
  /** The delete link's secret; null: a random one. */
  deleteSecret: string | null;
  /** Recorded for a key that reuses or refuses duplicates (duplicates.ts); null otherwise. */
  sourceDigest: string | null;
  /** Runs inside the transaction that records the upload, before the image record: fails it if it fails. */
  inTransaction?: (trx: Knex.Transaction, image: StoredImage, file: SizedFile) => Promise<void>;
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

/** Marks a read of a stored file that is not there (deleted meanwhile). */
const FILE_MISSING = Symbol('stored file missing');
export const isFileMissing = (error: unknown) => Boolean((error as Record<symbol, unknown> | null)?.[FILE_MISSING]);

/** A local read's error, marked isFileMissing() when the file is not there (ENOENT). */
const missingIfAbsent = (error: unknown) =>
  (error as NodeJS.ErrnoException | null)?.code === 'ENOENT' ? Object.assign(error as Error, { [FILE_MISSING]: true }) : error;

/**
 * Stored files that renders read into reused buffers (reused-buffers.ts): up to 8 MB (a phone's photo;
 * larger ones are read by path). As many are kept as renders can run at once (the image-work slots:
 * renders run inside one, images/image-work.ts): on 2 cores, 2 buffers, 16 MB once filled.
 */
const REUSED_BUFFER_BYTES = 8 * 1024 * 1024;

/** Marks an upload whose outcome the debris sweep settles (the database went away while recording it). */
const LEFT_TO_SWEEP = Symbol('left to the debris sweep');

/** Characters of a delete link's secret ([A-Za-z0-9], about 238 bits). */
const DELETE_SECRET_LENGTH = 40;

const kilobytes = (bytes: number) => Math.round((bytes / 1000) * 100) / 100;

/** The provider's file object for encoded bytes stored as `<hash>.<ext>`. */
export function providerFile(
  image: Pick<EncodedImage, 'buffer' | 'width' | 'height'> & { format: keyof typeof EXTENSION_BY_FORMAT },
  hash: string
): ProviderFile {
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

  const absolute = (url: string) => getService(strapi, 'public-url').fileUrl(url);

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

  /**
   * Deletes files through the provider (a file that is not there counts as deleted); true when every
   * one is gone. Whoever journalled them keeps the journal row until this says true.
   */
  async function remove(files: JournalledFile[]): Promise<boolean> {
    const results = await Promise.allSettled(files.map((file) => strapi.plugin('upload').provider.delete(file)));
    const failed = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    for (const { reason } of failed) strapi.log.warn(`image-api: could not delete an upload's file: ${(reason as Error)?.message ?? reason}`);
    return failed.length === 0;
  }

  /**
   * The bytes of a stored file: from disk with the local provider, else from its URL (S3 and the
   * like), within `fetchTimeoutMs`. Only this service's own files are ever read (their URLs come
   * from their records).
   */
  async function read(file: { hash: string; ext: string; url: string }): Promise<Buffer> {
    const local = localPath(file);
    if (local) {
      return fsp.readFile(local).catch((error) => {
        throw missingIfAbsent(error);
      });
    }
    const response = await fetch(absolute(file.url), { signal: AbortSignal.timeout(getConfig(strapi).fetchTimeoutMs) });
    if (!response.ok) {
      const error = new Error(`image-api: the storage answered ${response.status} for a stored file`);
      throw response.status === 404 || response.status === 403 ? Object.assign(error, { [FILE_MISSING]: true }) : error;
    }
    return Buffer.from(await response.arrayBuffer());
  }

  /**
   * A stream of a stored file's bytes, all of them or `range` (inclusive): from disk with the local
   * provider (the file is opened before this resolves, so a missing one throws isFileMissing() here),
   * else from its URL (with a Range header for a range), its headers within `fetchTimeoutMs`, its body
   * as the reader takes it (undici's body timeout between chunks). Never read whole into memory.
   */
  async function stream(file: { hash: string; ext: string; url: string }, range?: { start: number; end: number }): Promise<Readable> {
    const local = localPath(file);
    if (local) {
      const handle = await fsp.open(local, 'r').catch((error) => {
        throw missingIfAbsent(error);
      });
      return handle.createReadStream(range ?? {});
    }
    const headersArrived = new AbortController();
    const timer = setTimeout(() => headersArrived.abort(new Error('image-api: the storage did not answer in time')), getConfig(strapi).fetchTimeoutMs);
    try {
      const headers: Record<string, string> = range ? { Range: `bytes=${range.start}-${range.end}` } : {};
      const response = await fetch(absolute(file.url), { signal: headersArrived.signal, headers });
      if (response.status !== (range ? 206 : 200) || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        const error = new Error(`image-api: the storage answered ${response.status} for ${range ? 'a range of ' : ''}a stored file`);
        throw response.status === 404 || response.status === 403 ? Object.assign(error, { [FILE_MISSING]: true }) : error;
      }
      return Readable.fromWeb(response.body as StreamWebReadable);
    } finally {
      clearTimeout(timer);
    }
  }

  // Made at the first render: the image-work slots are set when the plugin registers.
  let buffers: ReusedBuffers | null = null;

  /** Where a stored file is on this machine's disk (the local provider), else null. */
  function localPath(file: { hash: string; ext: string }): string | null {
    return providerName() === 'local' ? path.join(strapi.dirs.static.public, 'uploads', `${file.hash}${file.ext}`) : null;
  }

  return {
    remove,
    read,
    stream,
    localPath,

    /**
     * What sharp reads a stored file from: its path when it is on this disk (libvips reads only what
     * it decodes: a JPEG shrunk on load is not read whole into JavaScript memory), else its bytes.
     * Throws isFileMissing() when it is not there.
     */
    async source(file: { hash: string; ext: string; url: string }): Promise<string | Buffer> {
      const local = localPath(file);
      if (!local) return read(file);
      try {
        await fsp.access(local);
      } catch (error) {
        throw Object.assign(error as Error, { [FILE_MISSING]: true });
      }
      return local;
    },

    /**
     * Runs `work` with what sharp reads a stored file from, for a render: its bytes, in a reused
     * buffer when it is on this disk (reused-buffers.ts; its path when larger than one), else fetched.
     * Resolves once `work` has settled, which must leave nothing reading the buffer. Throws
     * isFileMissing() when the file is not there.
     */
    async withSource<T>(file: { hash: string; ext: string; url: string }, work: (input: Buffer | string) => Promise<T>): Promise<T> {
      const local = localPath(file);
      if (!local) return work(await read(file));
      buffers ??= reusedBuffers(REUSED_BUFFER_BYTES, imageWorkSlots());
      return buffers.withFile(local, work).catch((error) => {
        throw missingIfAbsent(error);
      });
    },

    /** Writes one file (not an upload's: a transformation result); the file's `url` is set. */
    async put(file: ProviderFile, bytes: Buffer): Promise<void> {
      await write(file, bytes);
    },

    async store(upload: NewImage): Promise<StoredImage> {
      const { variants } = upload;
      const original = providerFile(variants.original, upload.name);
      const thumb = providerFile(variants.thumb, `${upload.name}.th`);
      const medium = providerFile(variants.medium, `${upload.name}.md`);
      const all = [original, thumb, medium];
      const bytes = [variants.original.buffer, variants.thumb.buffer, variants.medium.buffer];

      const records = getService(strapi, 'upload-records');
      const journal = getService(strapi, 'journal');
      // Journal first: if the process dies before the records are committed, the sweep knows the files.
      const journalId = await journal.open(upload.name, all.map(({ hash, ext }) => ({ hash, ext })));
      try {
        // Settle every write before judging, so a failure never races a write still under way.
        const results = await Promise.allSettled(all.map((file, i) => write(file, bytes[i])));
        const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
        if (failed) throw failed.reason;

        const now = new Date();
        const expiresAt = upload.expiresIn === null ? null : new Date(now.getTime() + upload.expiresIn * 1000);
        // The delete link's secret: handed to the client once, stored only as its hash.
        const deleteSecret = upload.deleteSecret ?? randomId(DELETE_SECRET_LENGTH);
        const publicUrl = getService(strapi, 'public-url');
        const stored: StoredImage = {
          ...variantView(original, variants.original),
          idEncoded: upload.idEncoded,
          md5: upload.md5,
          title: upload.title,
          description: upload.description,
          nsfw: upload.nsfw,
          moderation: upload.moderation.state,
          views: 0,
          originalFilename: upload.originalFilename,
          originalExif: upload.originalExif,
          createdAt: now,
          storage: providerName(),
          viewerUrl: publicUrl.viewer(upload.idEncoded),
          deleteUrl: publicUrl.deleteLink(upload.idEncoded, deleteSecret),
          expiresAt,
          thumb: variantView(thumb, variants.thumb),
          medium: variantView(medium, variants.medium),
          placeholder: variants.placeholder.thumbHash,
          dominantColor: variants.placeholder.dominantColor,
          sourceDigest: upload.sourceDigest,
        };
        // The upload's files as the file entry records them (kilobytes): quotas and tallies count these.
        const sized: SizedFile = { size: original.size, formats: { thumb, medium } };
        const folders = getService(strapi, 'media-folder');
        let fileId = 0;
        const record = (folder: MediaFolder) =>
          transaction(strapi, async (trx) => {
            fileId = await records.createFile(
              trx,
              {
                data: {
                  name: upload.libraryName,
                  // The title describes the image: its alternative text, and its caption unless a
                  // description was given (the Media Library flags files with neither).
                  alternativeText: upload.title,
                  caption: upload.description ?? upload.title,
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
                userId: upload.createdByAdminId,
              },
              now
            );
            await journal.close(journalId, trx);
            // Before the image record: its link to the key takes a shared lock on the key's row (the
            // foreign key check), and an UPDATE of that row after it deadlocks two concurrent uploads
            // of one key on MariaDB. Taken first, the row's lock makes them wait their turn instead.
            await upload.inTransaction?.(trx, stored, sized);
            await records.createImage(
              trx,
              {
                data: {
                  id_encoded: upload.idEncoded,
                  name: upload.name,
                  title: upload.title,
                  label: upload.title?.trim() || upload.originalFilename,
                  description: upload.description,
                  md5: upload.md5,
                  views: 0,
                  nsfw: upload.nsfw,
                  moderation: upload.moderation.state,
                  nsfw_score: upload.moderation.score,
                  nsfw_scores: upload.moderation.scores,
                  // Flagged and held images wait in the review queue.
                  review_since: upload.moderation.state === 'none' ? null : now,
                  report_count: 0,
                  original_filename: upload.originalFilename,
                  original_exifdata: upload.originalExif,
                  expires_at: expiresAt,
                  delete_hash: deleteHashOf(deleteSecret),
                  placeholder: stored.placeholder,
                  dominant_color: stored.dominantColor,
                  source_digest: upload.sourceDigest,
                  // Answered again for a duplicate (duplicates.ts), and what the image's events carry (media-events.ts).
                  answer: savedAnswer(stored),
                  publishedAt: now,
                },
                fileId,
                albumId: folder.id,
                apiKeyId: upload.apiKeyId,
                adminOwnerId: upload.adminOwnerId,
                siteUserOwnerId: upload.siteUserOwnerId,
              },
              now
            );
            // The usage page's tallies, committed with the records or not at all.
            await getService(strapi, 'usage-tally').upload(trx, upload.apiKeyId, sized, now);
          });
        // The plugin's folder is checked every few seconds. If an editor deleted it since, the records
        // fail on it: then, and only then, they are written once more, in the folder found or made again.
        let folder = upload.folder;
        try {
          await retryTransient(() => record(folder));
        } catch (error) {
          // The database went away while recording: whether its COMMIT took effect is unknown (a hung
          // server may still apply it when it wakes). The files stay with the journal row, and the
          // debris sweep decides later: records there, the row goes; no records, the files go.
          if (isDatabaseUnavailable(error)) throw Object.assign(error as Error, { [LEFT_TO_SWEEP]: true });
          const again = await folders.replacementFor(folder).catch(() => folder);
          if (again.id === folder.id) throw error;
          folder = again;
          await retryTransient(() => record(folder));
        }
        // A lookup of this name made before it existed (a client guessing ahead) is not reused.
        getService(strapi, 'image-changes').changed('stored', [upload.name]);
        getService(strapi, 'media-events').uploaded(fileId, stored, upload.keyName);
        return stored;
      } catch (error) {
        if ((error as Record<symbol, unknown>)?.[LEFT_TO_SWEEP]) throw error;
        // Every file of the upload, written or not: one whose write failed half-way is there too. The
        // journal row goes only with them; else the sweep finds them later.
        if (await remove(all)) await journal.close(journalId).catch(() => undefined);
        throw error;
      }
    },
  };
};
