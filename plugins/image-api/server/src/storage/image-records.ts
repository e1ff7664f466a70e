/**
 * Image records: the viewer's lookup and its atomic view counter (neither finds a held image), the lookup a deletion starts from,
 * the expiry sweep's claims, and cleanup when the Media Library deletes a file. An expired image is
 * not found from the instant it expires, whether or not the sweep has removed it yet. Every lookup
 * goes through an index (the content type declares them).
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, PLUGIN_ID } from '../config/constants';
import { fileUrlsOf, removeReports, type RemovableImage } from './image-removal';
import type { KeptFile } from './journal';
import { createRowWriter } from '../database/sql-rows';
import type { Knex } from 'knex';
import { transaction } from '../database/transaction';
import { retryTransient } from '../database/transient-errors';
import type { SizedFile } from './usage-tally';
import { getService } from '../get-service';

export interface ViewerImage {
  idEncoded: string;
  title: string | null;
  description: string | null;
  views: number;
  originalFilename: string | null;
  file: { url: string; width: number; height: number; mime: string; ext: string } | null;
  /** Bytes of the original (the file entry keeps kilobytes). */
  bytes: number;
  /** The `.md` variant, the image link previews show. */
  medium: { url: string; width: number; height: number } | null;
  /** The key it was uploaded with (the usage tallies count its views under it). */
  apiKeyId: number | null;
  /** Marked NSFW (by its uploader, or flagged by moderation): the page asks before showing it. */
  nsfw: boolean;
}

/** An image as a deletion finds it: what to delete, who may, and what the confirmation page shows. */
export interface ImageForRemoval extends RemovableImage {
  idEncoded: string;
  title: string | null;
  originalFilename: string | null;
  /** SHA-256 (hex) of the delete link's secret. */
  deleteHash: string | null;
  apiKeyId: number | null;
  adminOwnerId: number | null;
  siteUserOwnerId: number | null;
  /** The `.th` variant's URL, for the confirmation page. */
  thumbUrl: string | null;
}

/** A claim older than this is another sweep's that died: its images may be claimed again. */
const CLAIM_LEASE_MS = 10 * 60 * 1000;

/** The delete link's secret as it is stored: SHA-256, hex (the secret itself never is). */
export const deleteHashOf = (secret: string) => crypto.createHash('sha256').update(secret).digest('hex');

const FILE_FIELDS = ['id', 'hash', 'ext', 'formats', 'url', 'size'];

/** A record read with FILE_FIELDS, its public id and its key's id, as a deletion needs it. */
export const asRemovable = (record: Omit<RemovableImage, 'idEncoded'> & { id_encoded: string; api_key?: { id: number } | null }): RemovableImage => ({
  id: record.id,
  name: record.name,
  idEncoded: record.id_encoded,
  file: record.file ?? null,
  apiKeyId: record.api_key?.id ?? null,
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const table = () => rows.model(IMAGE_UID).tableName;
  const column = (attribute: string) => rows.model(IMAGE_UID).attributes[attribute].columnName ?? attribute;
  const hasSiteUsers = () => 'owner_user' in strapi.contentType(IMAGE_UID).attributes;
  /** Not held for review (knex): rows written before moderation have no state (null). */
  const notHeld = (query: Knex.QueryBuilder) => query.whereNull(column('moderation')).orWhereNot(column('moderation'), 'held');
  /** Not expired at `now` (the query engine's filter). */
  const live = (now: Date) => ({ $or: [{ expires_at: null }, { expires_at: { $gt: now } }] });

  return {
    /** Counts one view, in one UPDATE so concurrent views are never lost; false for an unknown, expired or held id. */
    async countView(idEncoded: string, now = new Date()): Promise<boolean> {
      const expiresAt = column('expires_at');
      const updated = await strapi.db
        .connection(table())
        .where(column('id_encoded'), idEncoded)
        .andWhere((query) => query.whereNull(expiresAt).orWhere(expiresAt, '>', now))
        .andWhere(notHeld)
        .increment(column('views'), 1);
      return Number(updated) > 0;
    },

    /** The image of a viewer page, unless it is unknown, expired or held for review (its every URL is 404 then). */
    async findForViewer(idEncoded: string, now = new Date()): Promise<ViewerImage | null> {
      const record = await strapi.db.query(IMAGE_UID).findOne({
        where: { id_encoded: idEncoded, $and: [live(now), { $or: [{ moderation: null }, { moderation: { $ne: 'held' } }] }] },
        populate: { file: true, api_key: { select: ['id'] } },
      });
      if (!record) return null;
      const file = record.file ?? null;
      return {
        idEncoded: record.id_encoded,
        title: record.title ?? null,
        description: record.description ?? null,
        views: Number(record.views),
        originalFilename: record.original_filename ?? null,
        file,
        bytes: file ? Math.round(Number(file.size) * 1000) : 0,
        medium: file?.formats?.medium ?? null,
        apiKeyId: record.api_key?.id ?? null,
        // Flagged by moderation: its page asks first, whatever an editor set `nsfw` to since.
        nsfw: Boolean(Number(record.nsfw ?? 0)) || record.moderation === 'flagged',
      };
    },

    /** The image a delete link or an API delete names, unless it is unknown or expired. */
    async findForRemoval(idEncoded: string, now = new Date()): Promise<ImageForRemoval | null> {
      const record = await strapi.db.query(IMAGE_UID).findOne({
        where: { id_encoded: idEncoded, ...live(now) },
        select: ['id', 'id_encoded', 'name', 'title', 'original_filename', 'delete_hash'],
        populate: {
          file: { select: FILE_FIELDS },
          api_key: { select: ['id'] },
          owner: { select: ['id'] },
          ...(hasSiteUsers() ? { owner_user: { select: ['id'] } } : {}),
        },
      });
      if (!record) return null;
      return {
        id: record.id,
        idEncoded: record.id_encoded,
        name: record.name,
        title: record.title ?? null,
        originalFilename: record.original_filename ?? null,
        deleteHash: record.delete_hash ?? null,
        apiKeyId: record.api_key?.id ?? null,
        adminOwnerId: record.owner?.id ?? null,
        siteUserOwnerId: record.owner_user?.id ?? null,
        file: record.file ?? null,
        thumbUrl: record.file?.formats?.thumbnail?.url ?? null,
      };
    },

    /**
     * Claims up to `limit` images expired at `now` for this sweep and returns them. Several sweeps may
     * run at once, on several instances: each image goes to exactly one, because a claim is an UPDATE
     * that only takes rows nobody holds (the database re-checks that condition on each row it
     * locks). A claim held longer than the lease is a dead sweep's and may be taken again. Costs grow
     * with the expired images only: the candidates come from the `expires_at` index.
     */
    async claimExpired(now: Date, limit: number): Promise<RemovableImage[]> {
      const knex = strapi.db.connection;
      const [expiresAt, claim, claimedAt] = [column('expires_at'), column('expiry_claim'), column('expiry_claimed_at')];
      const unclaimed = (query: ReturnType<typeof knex>) =>
        query.whereNull(claim).orWhere(claimedAt, '<', new Date(now.getTime() - CLAIM_LEASE_MS));
      const candidates: number[] = (
        await knex(table()).select('id').where(expiresAt, '<=', now).andWhere(unclaimed).orderBy(expiresAt).limit(limit)
      ).map((row: { id: number }) => row.id);
      if (candidates.length === 0) return [];

      const token = crypto.randomBytes(12).toString('hex');
      await knex(table()).whereIn('id', candidates).andWhere(unclaimed).update({ [claim]: token, [claimedAt]: now });
      const claimed = await strapi.db.query(IMAGE_UID).findMany({
        where: { id: { $in: candidates }, expiry_claim: token },
        select: ['id', 'name', 'id_encoded'],
        populate: { file: { select: FILE_FIELDS }, api_key: { select: ['id'] } },
      });
      return claimed.map(asRemovable);
    },

    /** The image records of a document (the Content Manager deletes by document), as a deletion needs them. */
    async findForRemovalByDocument(documentId: string): Promise<RemovableImage[]> {
      const records = await strapi.db.query(IMAGE_UID).findMany({
        where: { documentId },
        select: ['id', 'name', 'id_encoded'],
        populate: { file: { select: FILE_FIELDS }, api_key: { select: ['id'] } },
      });
      return records.map(asRemovable);
    },

    /**
     * Names the images stored before they had a label (the Content Manager's main field): title,
     * else the client's file name. One statement, once per database (a flag in the plugin store).
     */
    async fillLabels(): Promise<number> {
      const flag = strapi.store({ type: 'plugin', name: PLUGIN_ID, key: 'labels-filled' });
      if (await flag.get({})) return 0;
      const [label, title, filename] = [column('label'), column('title'), column('original_filename')];
      const knex = strapi.db.connection;
      const filled = await knex(table())
        .whereNull(label)
        .update({ [label]: knex.raw(`coalesce(nullif(trim(??), ''), ??)`, [title, filename]) });
      await flag.set({ value: { done: true } });
      return Number(filled);
    },

    /** Deletes the records of a Media Library file that was deleted (matched by its hash), with their links. */
    async removeForFile(file: SizedFile & { hash?: string }): Promise<void> {
      if (!file?.hash) return;
      const found = await strapi.db.query(IMAGE_UID).findMany({
        where: { name: file.hash },
        select: ['id', 'id_encoded'],
        populate: { api_key: { select: ['id'] } },
      });
      if (found.length === 0) return;
      // Strapi emitted `media.delete` for the file; the plugin's `.delete` event needs the records.
      const events = getService(strapi, 'media-events');
      const snapshots = await events.snapshot(found.map((record: { id: number }) => record.id));
      let kept = new Map<string, KeptFile[]>();
      let purge: number | null = null;
      // Rolled back by a deadlock with another deletion (MySQL/MariaDB): run again.
      await retryTransient(() => transaction(strapi, async (trx) => {
        const views = await getService(strapi, 'usage-tally').viewsOf(trx, found.map((record: { id: number }) => record.id));
        await rows.remove(trx, IMAGE_UID, found.map((record: { id: number }) => record.id));
        await removeReports(strapi, trx, found.map((record: { id_encoded: string }) => record.id_encoded));
        kept = await getService(strapi, 'renditions').takeFor(trx, [file.hash!]);
        const removed = found.map((record: { id: number; api_key?: { id: number } | null }) => ({ keyId: record.api_key?.id ?? null, file, views: views.get(record.id) ?? 0 }));
        await getService(strapi, 'usage-tally').removal(trx, removed);
        await getService(strapi, 'quotas').release(trx, removed);
        purge = await getService(strapi, 'purges').record(trx, found.map((record: { id_encoded: string }) => ({ idEncoded: record.id_encoded, fileUrls: [...fileUrlsOf(file as Parameters<typeof fileUrlsOf>[0]), ...(kept.get(file.hash!) ?? []).map((kept) => kept.url)] })));
      }));
      events.removed(snapshots, 'media-library');
      // The Media Library removed the file's own files; its kept transformations go here.
      getService(strapi, 'image-changes').changed('deleted', [file.hash]);
      const keptFiles = kept.get(file.hash) ?? [];
      if (keptFiles.length > 0 && (await getService(strapi, 'media-store').remove(keptFiles))) {
        await getService(strapi, 'journal').closeNames([file.hash]);
      }
      getService(strapi, 'purges').sendSoon(purge);
    },
  };
};
