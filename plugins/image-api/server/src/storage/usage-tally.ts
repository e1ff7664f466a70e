/**
 * Keeps the per-day, per-key tallies of the admin's usage page (content-types/usage-day): one upsert
 * per counted event, in the caller's transaction, so a tally counts exactly the uploads and deletions
 * that were committed. Views are counted after the view, outside any transaction: a lost view
 * tally is a smaller harm than a failed page.
 */
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, USAGE_DAY_UID } from '../config/constants';
import { createRowWriter, type Knex } from '../database/sql-rows';

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
  views_removed?: number;
}

/** Something counted under a key on a day. */
interface TalliedEvent {
  keyId: number | null;
  at: Date;
  counts: Counts;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const table = () => rows.model(USAGE_DAY_UID).tableName;

  /** Adds `counts` to the (day, key) row, creating it if needed: one statement on all three databases. */
  const add = async (knex: Knex, keyId: number | null, counts: Counts, at: Date) => {
    const name = table();
    const row = { day: dayOf(at), key_id: keyId ?? 0, uploads: 0, removals: 0, bytes_added: 0, bytes_removed: 0, views: 0, views_removed: 0, ...counts };
    const increments = Object.fromEntries(
      Object.entries(counts).map(([column, n]) => [column, knex.raw('?? + ?', [`${name}.${column}`, n])])
    );
    await knex(name).insert(row).onConflict(['day', 'key_id']).merge(increments);
  };

  /** Adds the events' counts into `sums`, by (day, key). */
  const sumInto = (sums: Map<string, TalliedEvent>, events: TalliedEvent[]) => {
    for (const { keyId, at, counts } of events) {
      const id = `${dayOf(at)}|${keyId}`;
      const sum = sums.get(id) ?? { keyId, at, counts: {} };
      for (const [column, n] of Object.entries(counts) as Array<[keyof Counts, number]>) sum.counts[column] = (sum.counts[column] ?? 0) + n;
      sums.set(id, sum);
    }
    return sums;
  };

  /** One statement per (day, key) row touched. */
  const addSums = async (knex: Knex, sums: Map<string, TalliedEvent>) => {
    for (const { keyId, counts, at } of sums.values()) await add(knex, keyId, counts, at);
  };

  return {
    table,

    /** An accepted upload, in its transaction: its files' bytes. */
    upload: (trx: Knex, keyId: number | null, file: SizedFile, at = new Date()) =>
      add(trx, keyId, { uploads: 1, bytes_added: storedBytes(file) }, at),

    /** Deleted images, in the transaction that deletes their records: their files' bytes and their views. */
    removal: (trx: Knex, images: Array<{ keyId: number | null; file: SizedFile | null; views?: number }>, at = new Date()) =>
      addSums(
        trx,
        sumInto(
          new Map(),
          images.map(({ keyId, file, views = 0 }) => ({ keyId, at, counts: { removals: 1, bytes_removed: storedBytes(file), views_removed: views } }))
        )
      ),

    /** The images' views by id, read in the transaction that deletes them (before their rows go). */
    async viewsOf(trx: Knex, ids: number[]): Promise<Map<number, number>> {
      const found = new Map<number, number>();
      const table = rows.model(IMAGE_UID).tableName;
      // In slices: a sweep deletes many at once, and databases cap a statement's bound values.
      for (let i = 0; i < ids.length; i += 500) {
        for (const row of await trx(table).whereIn('id', ids.slice(i, i + 500)).select('id', 'views')) found.set(Number(row.id), Number(row.views ?? 0));
      }
      return found;
    },

    /** One view of an image uploaded with `keyId`. */
    view: (keyId: number | null, at = new Date()) => add(strapi.db.connection, keyId, { views: 1 }, at),
  };
};
