/**
 * The review of moderation (docs/moderation.md, "Review"): the queue of flagged, held and reported
 * images (`review_since` set), oldest first, and what a reviewer does with one: approve it, take it
 * down (a deletion as any other, purged from the caches in front, its event `.takedown` with the
 * reason), or block it (a takedown that adds the stored original's SHA-256, MD5 and PDQ to the
 * blocklist, in the deletion's own transaction: both happen or neither). Each action is logged with
 * the admin who took it, and counted (`image_api_moderation_total`).
 *
 * Costs: a page of the queue reads at most QUEUE_PAGE_SIZE_MAX rows through the `review_since`
 * index, their keys' names and files, one count through the same index, and per image its latest
 * reports through the reports' (image, created_at) index. An action is one indexed lookup and one
 * UPDATE (approve) or one deletion (take down; block reads the original's bytes and hashes them
 * first). A thumbnail is one lookup and one read of the `.th` file (a few KB).
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, REPORT_UID, type ModerationState, type ReportReason } from '../config/constants';
import { createRowWriter } from '../database/sql-rows';
import { getService } from '../get-service';
import type { RemovableImage } from '../storage/image-removal';
import { asRemovable } from '../storage/image-records';
import { isFileMissing } from '../storage/media-store';
import { pdqOf } from './pdq';
import {
  QUEUE_PAGE_SIZE,
  QUEUE_PAGE_SIZE_MAX,
  QUEUE_REPORTS_SHOWN,
  type BlockAnswer,
  type BlockKind,
  type BlocklistCounts,
  type ImportAnswer,
  type NsfwScores,
  type QueueItem,
  type QueuePage,
} from '../../../shared/contracts/review';
import { adminUrl } from '../../../shared/contracts/admin-routes';

/** Who took an action: the admin's id, for the log. */
export interface Reviewer {
  adminId: number | string;
}

/** A thumbnail's bytes for the review (its public URL may answer 404: a held image). */
export interface ReviewThumbnail {
  bytes: Buffer;
  mime: string;
}

/**
 * A PDQ of quality under this describes a near-flat picture, which many unrelated pictures are near
 * too (the reference's advice): a block adds the exact hashes only.
 */
export const PDQ_QUALITY_MIN = 50;

const digest = (algorithm: 'sha256' | 'md5', bytes: Buffer) => crypto.createHash(algorithm).update(bytes).digest('hex');

const parsed = <T>(value: T | string | null | undefined): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : (value ?? null));

/** A page number and size from a query: the first page, QUEUE_PAGE_SIZE, unless asked within bounds. */
export function pageOf(query: { page?: unknown; pageSize?: unknown }): { page: number; pageSize: number } {
  const page = Number(query.page ?? 1);
  const pageSize = Number(query.pageSize ?? QUEUE_PAGE_SIZE);
  return {
    page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
    pageSize: Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= QUEUE_PAGE_SIZE_MAX ? pageSize : QUEUE_PAGE_SIZE,
  };
}

const FILE_FIELDS = ['id', 'hash', 'ext', 'formats', 'url', 'size', 'mime', 'width', 'height'];

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const images = () => rows.model(IMAGE_UID);
  const column = (attribute: string) => images().attributes[attribute].columnName ?? attribute;
  const metrics = () => getService(strapi, 'metrics');
  const audit = (reviewer: Reviewer, what: string) => strapi.log.info(`image-api: review: admin ${reviewer.adminId} ${what}`);

  /** The record a review action starts from, by public id (held or not, in the queue or not). */
  async function find(idEncoded: string): Promise<(RemovableImage & { keyName: string | null; fileMime: string | null }) | null> {
    const record = await strapi.db.query(IMAGE_UID).findOne({
      where: { id_encoded: idEncoded },
      select: ['id', 'id_encoded', 'name'],
      populate: { file: { select: FILE_FIELDS }, api_key: { select: ['id', 'name'] } },
    });
    if (!record) return null;
    return { ...asRemovable(record), keyName: record.api_key?.name ?? null, fileMime: record.file?.mime ?? null };
  }

  /** Its latest reports, newest first. */
  async function reportsOf(idEncoded: string): Promise<QueueItem['reports']> {
    const table = rows.model(REPORT_UID).tableName;
    const found = await strapi.db
      .connection(table)
      .select('reason', 'text', 'created_at')
      .where('image_id_encoded', idEncoded)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(QUEUE_REPORTS_SHOWN);
    return found.map((row: { reason: ReportReason; text: string | null; created_at: string | number | Date }) => ({
      reason: row.reason,
      text: row.text ?? null,
      createdAt: new Date(typeof row.created_at === 'string' && /^\d+$/.test(row.created_at) ? Number(row.created_at) : row.created_at).toISOString(),
    }));
  }

  return {
    /** A page of the queue, oldest first (ties by id, so pages never overlap). */
    async queue({ page, pageSize }: { page: number; pageSize: number }): Promise<QueuePage> {
      const since = column('review_since');
      const [records, [{ total }]] = await Promise.all([
        strapi.db.query(IMAGE_UID).findMany({
          where: { review_since: { $notNull: true } },
          orderBy: [{ review_since: 'asc' }, { id: 'asc' }],
          offset: (page - 1) * pageSize,
          limit: pageSize,
          select: ['id', 'id_encoded', 'createdAt', 'nsfw', 'moderation', 'nsfw_score', 'nsfw_scores', 'review_since', 'report_count'],
          populate: { file: { select: ['width', 'height'] }, api_key: { select: ['name'] } },
        }),
        strapi.db.connection(images().tableName).whereNotNull(since).count({ total: '*' }),
      ]);
      const items = await Promise.all(
        records.map(async (record: Record<string, any>): Promise<QueueItem> => ({
          idEncoded: record.id_encoded,
          createdAt: new Date(record.createdAt).toISOString(),
          reviewSince: new Date(record.review_since).toISOString(),
          nsfw: Boolean(Number(record.nsfw ?? 0)),
          moderation: (record.moderation ?? 'none') as ModerationState,
          nsfwScore: record.nsfw_score == null ? null : Number(record.nsfw_score),
          nsfwScores: parsed<NsfwScores>(record.nsfw_scores),
          reportCount: Number(record.report_count ?? 0),
          reports: Number(record.report_count ?? 0) > 0 ? await reportsOf(record.id_encoded) : [],
          keyName: record.api_key?.name ?? null,
          width: record.file?.width ?? null,
          height: record.file?.height ?? null,
          thumbnailPath: adminUrl('reviewThumbnail', { idEncoded: record.id_encoded }),
        }))
      );
      return { items, page, pageSize, total: Number(total) };
    },

    /** The `.th` variant's bytes (the original's for an image without one); null: no such image or file. */
    async thumbnail(idEncoded: string): Promise<ReviewThumbnail | null> {
      const image = await find(idEncoded);
      const file = image?.file as (RemovableImage['file'] & { url: string; mime?: string; formats?: Record<string, { hash: string; ext: string; url: string; mime?: string }> }) | null;
      if (!file) return null;
      const thumbnail = file.formats?.thumbnail ?? file;
      try {
        const bytes = await getService(strapi, 'media-store').read(thumbnail);
        return { bytes, mime: thumbnail.mime ?? image?.fileMime ?? 'application/octet-stream' };
      } catch (error) {
        if (isFileMissing(error)) return null;
        throw error;
      }
    },

    /**
     * Approves the image: served as any other (a held one's URLs answer again), out of the queue.
     * Every lookup of it this instance keeps is forgotten now; other instances' within SOURCE_TTL_MS
     * (storage/image-changes.ts). False: no such image.
     */
    async approve(idEncoded: string, reviewer: Reviewer): Promise<boolean> {
      const name = await strapi.db.connection(images().tableName).where(column('id_encoded'), idEncoded).first(column('name'));
      if (!name) return false;
      const updated = await strapi.db
        .connection(images().tableName)
        .where(column('id_encoded'), idEncoded)
        .update({ [column('moderation')]: 'approved', [column('review_since')]: null });
      if (Number(updated) === 0) return false;
      getService(strapi, 'image-changes').changed('edited', [name[column('name')]]);
      metrics().moderated('approved');
      audit(reviewer, `approved image ${idEncoded}`);
      return true;
    },

    /** Takes the image down (a deletion: `.takedown` with `reason`). False: no such image. */
    async takedown(idEncoded: string, reason: string, reviewer: Reviewer): Promise<boolean> {
      const image = await find(idEncoded);
      if (!image) return false;
      await getService(strapi, 'image-removal').remove([image], 'takedown', { reason });
      metrics().moderated('taken_down');
      audit(reviewer, `took down image ${idEncoded}: ${JSON.stringify(reason)}`);
      return true;
    },

    /**
     * Takes the image down and adds its stored original's fingerprints to the blocklist, in the
     * deletion's transaction. Null: no such image. The original is read before anything is deleted:
     * a storage that fails to give it leaves the image as it was.
     */
    async block(idEncoded: string, reason: string, reviewer: Reviewer): Promise<BlockAnswer | null> {
      const image = await find(idEncoded);
      // An image always has its file entry (the Media Library's deletion of one removes the image).
      if (!image?.file) return null;
      const bytes = await getService(strapi, 'media-store').read(image.file as { hash: string; ext: string; url: string });
      const pdq = await pdqOf(bytes).catch(() => null);
      const fingerprints: BlockAnswer = {
        sha256: digest('sha256', bytes),
        md5: digest('md5', bytes),
        pdq: pdq && pdq.quality >= PDQ_QUALITY_MIN ? pdq.hash : null,
      };
      const entries: Array<{ kind: BlockKind; hash: string }> = [
        { kind: 'sha256', hash: fingerprints.sha256 },
        { kind: 'md5', hash: fingerprints.md5 },
        ...(fingerprints.pdq ? [{ kind: 'pdq' as const, hash: fingerprints.pdq }] : []),
      ];
      const blocklist = getService(strapi, 'blocklist');
      await getService(strapi, 'image-removal').remove([image], 'takedown', {
        reason,
        within: async (trx) => {
          await blocklist.add(entries, { source: 'takedown', imageId: idEncoded, note: reason }, trx);
        },
      });
      metrics().moderated('taken_down');
      metrics().moderated('block_added');
      audit(reviewer, `blocked image ${idEncoded} (${entries.map((entry) => `${entry.kind} ${entry.hash}`).join(', ')}): ${JSON.stringify(reason)}`);
      return fingerprints;
    },

    /** Adds a list of hashes (one hex hash a line) to the blocklist. */
    async importList(kind: BlockKind, text: string, reviewer: Reviewer): Promise<ImportAnswer> {
      const answer = await getService(strapi, 'blocklist').importText(kind, text, `imported by admin ${reviewer.adminId}`);
      audit(reviewer, `imported a ${kind} hash list: ${answer.added} added, ${answer.duplicates} already there, ${answer.invalidCount} invalid`);
      return answer;
    },

    /** What the blocklist holds. */
    counts: (): Promise<BlocklistCounts> => getService(strapi, 'blocklist').count(),
  };
};
