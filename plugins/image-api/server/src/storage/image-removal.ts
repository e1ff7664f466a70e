/**
 * Deletes images completely (docs/api.md, "Deleting an image"): the original and both variants
 * through the upload provider (S3 too), the Media Library file entry and the image record, with their
 * link rows and their reports. The rows of a batch go in one transaction, before the files; the journal names the files
 * first, so whatever happens next the records are either all there (nothing deleted) or gone with
 * their files removed now, or by the journal's sweep if the storage fails or the process dies.
 */
import type { Core } from '@strapi/strapi';
import pLimit from 'p-limit';
import { FILE_UID, IMAGE_UID, REPORT_UID } from '../config/constants';
import { getService } from '../get-service';
import type { JournalledFile, KeptFile } from './journal';
import type { RemovalCause } from './media-events';
import { createRowWriter, type Knex } from '../database/sql-rows';
import { transaction } from '../database/transaction';
import { retryTransient } from '../database/transient-errors';

/** What a deletion needs to know of an image. */
export interface RemovableImage {
  id: number;
  /** The stored base name (the file's hash). */
  name: string;
  /** Its Media Library file entry; null when an editor deleted it already. */
  file: {
    id: number;
    hash: string;
    ext: string;
    url?: string | null;
    size?: number | string | null;
    formats?: Record<string, { hash: string; ext: string; url?: string | null; size?: number | string | null }> | null;
  } | null;
  /** The key it was uploaded with: the usage tallies file the deletion under it. */
  apiKeyId?: number | null;
  /** Its public id: the caches in front are told to forget it by the tag naming it (purge/). */
  idEncoded: string;
}

/** Every URL of an image's files, as the purge journal needs them (purge/purge-journal.ts). */
export const fileUrlsOf = (file: { url?: string | null; formats?: Record<string, { url?: string | null }> | null } | null): string[] =>
  file ? [file.url, ...Object.values(file.formats ?? {}).map((format) => format.url)].filter((url): url is string => typeof url === 'string') : [];

/** The provider files of an image: the original and every format recorded on its file entry. */
export const filesOf = ({ file }: RemovableImage): JournalledFile[] =>
  file ? [{ hash: file.hash, ext: file.ext }, ...Object.values(file.formats ?? {}).map(({ hash, ext }) => ({ hash, ext }))] : [];

/**
 * The viewers' reports of these images (moderation/reports.ts), deleted in the deletion's own
 * transaction, after the image rows: a report being stored locks its image's row first too, so the
 * two wait on each other in one order.
 */
export async function removeReports(strapi: Core.Strapi, trx: Knex, idEncodeds: string[]): Promise<void> {
  if (idEncodeds.length === 0) return;
  await trx(createRowWriter(strapi).model(REPORT_UID).tableName).whereIn('image_id_encoded', idEncodeds).del();
}

/** What a removal may carry besides its cause. */
export interface RemovalOptions {
  /** A takedown's reason, told to webhooks (`image-api.image.takedown`). */
  reason?: string | null;
  /**
   * More writes that stand or fall with the deletion, run in its transaction after the image rows
   * (a block's fingerprints, moderation/review.ts); run again when the transaction is.
   */
  within?: (trx: Knex) => Promise<void>;
}

/** Images whose files are deleted at once (each has three; S3 deletes are requests). */
const FILE_DELETES_AT_ONCE = 8;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);

  return {
    /**
     * Deletes the images, records first (all or none of them), then their files; once the records are
     * gone, their events are emitted (media-events.ts), named after `cause`.
     */
    async remove(images: RemovableImage[], cause: RemovalCause, { reason = null, within }: RemovalOptions = {}): Promise<void> {
      if (images.length === 0) return;
      const journal = getService(strapi, 'journal');
      const events = getService(strapi, 'media-events');
      const snapshots = await events.snapshot(images.map((image) => image.id));
      const names = images.map((image) => image.name);
      await journal.openMany(images.map((image) => ({ name: image.name, files: filesOf(image) })));
      let kept = new Map<string, KeptFile[]>();
      let purge: number | null = null;
      try {
        // Concurrent deletions may deadlock on MySQL/MariaDB (the link tables' gap locks): the whole
        // transaction was rolled back, and runs again.
        await retryTransient(() => transaction(strapi, async (trx) => {
          const views = await getService(strapi, 'usage-tally').viewsOf(trx, images.map((image) => image.id));
          await rows.remove(trx, IMAGE_UID, images.map((image) => image.id));
          await within?.(trx);
          await removeReports(strapi, trx, images.map((image) => image.idEncoded));
          // After the image rows (whose locks a render waits on to record its result): every kept
          // transformation is taken, journalled in this transaction (renditions.ts).
          kept = await getService(strapi, 'renditions').takeFor(trx, names);
          await rows.remove(trx, FILE_UID, images.flatMap((image) => (image.file ? [image.file.id] : [])));
          const removed = images.map((image) => ({ keyId: image.apiKeyId ?? null, file: image.file, views: views.get(image.id) ?? 0 }));
          await getService(strapi, 'usage-tally').removal(trx, removed);
          await getService(strapi, 'quotas').release(trx, removed);
          // What the caches in front must forget, recorded with the deletion: it cannot be lost.
          // The kept results' URLs too: an instance reads them through the provider's URL, which a
          // bucket's CDN may have kept, and their names follow from the image's.
          purge = await getService(strapi, 'purges').record(
            trx,
            images.map((image) => ({ idEncoded: image.idEncoded, fileUrls: [...fileUrlsOf(image.file), ...(kept.get(image.name) ?? []).map((file) => file.url)] }))
          );
        }));
      } catch (error) {
        await journal.closeNames(names).catch(() => undefined);
        throw error;
      }
      events.removed(snapshots, cause, reason);
      const limit = pLimit(FILE_DELETES_AT_ONCE);
      const store = getService(strapi, 'media-store');
      getService(strapi, 'image-changes').changed('deleted', names);
      const gone = await Promise.all(images.map((image) => limit(() => store.remove([...filesOf(image), ...(kept.get(image.name) ?? [])]))));
      // The files are gone: a cache asking again now gets a 404, not the picture.
      getService(strapi, 'purges').sendSoon(purge);
      // Files the storage would not let go stay journalled: the sweep retries them.
      await journal.closeNames(names.filter((_, i) => gone[i]));
    },
  };
};
