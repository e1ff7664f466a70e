/**
 * Keeps the per-day, per-key tallies of the admin's usage page (content-types/usage-day): one upsert
 * per counted event, in the caller's transaction, so a tally counts exactly the uploads and deletions
 * that were committed. Views are counted after the view, outside any transaction: a lost view
 * tally is a smaller harm than a failed page.
 */
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, USAGE_DAY_UID } from '../../constants';
import { createRowWriter, type Knex } from './sql-rows';

/** A file entry as the Media Library keeps it: sizes in kilobytes (1000 bytes), two decimals. */
export interface SizedFile {
  size?: number | string | null;
  formats?: Record<string, { size?: number | string | null }> | null;
}

/** Bytes of a file entry and its formats, from the kilobytes recorded (the same figure both ways). */
export const storedBytes = (file: SizedFile | null | undefined): number => {
  if (!file) return 0;
  const bytes = (kilobytes: unknown) => Math.round(Number(kilobytes ?? 0) * 1000) || 0;
  return bytes(file.size) + Object.values(file.formats ?? {}).reduce((sum, format) => sum + bytes(format?.size), 0);
};

/** "2026-11-24": the UTC day the tallies file an event under. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

interface Counts {
  uploads?: number;
  removals?: number;
  bytes_added?: number;
  bytes_removed?: number;
  views?: number;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const table = () => rows.model(USAGE_DAY_UID).tableName;

  /** Adds `counts` to the (day, key) row, creating it if needed: one statement on all three databases. */
  const add = async (knex: Knex, keyId: number | null, counts: Counts, at: Date) => {
    const name = table();
    const row = { day: dayOf(at), key_id: keyId ?? 0, uploads: 0, removals: 0, bytes_added: 0, bytes_removed: 0, views: 0, ...counts };
    const increments = Object.fromEntries(
      Object.entries(counts).map(([column, n]) => [column, knex.raw('?? + ?', [`${name}.${column}`, n])])
    );
    await knex(name).insert(row).onConflict(['day', 'key_id']).merge(increments);
  };

  return {
    table,

    /** An accepted upload, in its transaction: its files' bytes. */
    upload: (trx: Knex, keyId: number | null, file: SizedFile, at = new Date()) =>
      add(trx, keyId, { uploads: 1, bytes_added: storedBytes(file) }, at),

    /** Deleted images, in the transaction that deletes their records. */
    async removal(trx: Knex, images: Array<{ keyId: number | null; file: SizedFile | null }>, at = new Date()): Promise<void> {
      const byKey = new Map<number | null, Counts>();
      for (const image of images) {
        const counts = byKey.get(image.keyId) ?? { removals: 0, bytes_removed: 0 };
        counts.removals! += 1;
        counts.bytes_removed! += storedBytes(image.file);
        byKey.set(image.keyId, counts);
      }
      for (const [keyId, counts] of byKey) await add(trx, keyId, counts, at);
    },

    /**
     * Fills the tallies from the images there are, once: for a database whose images predate them
     * (they start empty). Uploads go under the day each image was uploaded; earlier views and
     * deletions are not known, so views count from now on (each image's own total stays exact).
     */
    async backfill(): Promise<number> {
      const knex = strapi.db.connection;
      if ((await knex(table()).first('id')) !== undefined) return 0;
      const totals = new Map<string, { keyId: number | null; day: Date; counts: Counts }>();
      let after = 0;
      let seen = 0;
      for (;;) {
        const page = await strapi.db.query(IMAGE_UID).findMany({
          where: { id: { $gt: after } },
          orderBy: { id: 'asc' },
          limit: 1000,
          select: ['id', 'createdAt'],
          populate: { file: { select: ['size', 'formats'] }, api_key: { select: ['id'] } },
        });
        if (page.length === 0) break;
        for (const image of page) {
          const keyId = image.api_key?.id ?? null;
          const day = new Date(image.createdAt);
          const entry = totals.get(`${dayOf(day)}|${keyId}`) ?? { keyId, day, counts: { uploads: 0, bytes_added: 0 } };
          entry.counts.uploads! += 1;
          entry.counts.bytes_added! += storedBytes(image.file);
          totals.set(`${dayOf(day)}|${keyId}`, entry);
        }
        seen += page.length;
        after = page[page.length - 1].id;
      }
      if (seen === 0) return 0;
      await strapi.db.transaction(async ({ trx }) => {
        for (const { keyId, day, counts } of totals.values()) await add(trx, keyId, counts, day);
      });
      return seen;
    },

    /** One view of an image uploaded with `keyId`. */
    view: (keyId: number | null, at = new Date()) => add(strapi.db.connection, keyId, { views: 1 }, at),
  };
};
