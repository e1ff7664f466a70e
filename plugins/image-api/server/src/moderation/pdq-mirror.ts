/**
 * This process's copy of the listed PDQ hashes (moderation/pdq-index.ts), kept in step with the
 * table, which every instance writes (reviewers' takedowns and blocks, imports, admins' removals).
 *
 * Loaded lazily, by the first lookup, in the background: until it is loaded, lookups go to the
 * table (blocklist.ts's multi-index query), as they do when the list holds more than
 * MIRROR_MAX_ENTRIES hashes (the memory bound). Kept fresh by one cheap question at most once a
 * second, asked by a lookup and answered before it: how many PDQ rows there are and the highest id.
 * The same: nothing to do. More, with a higher id: the rows past the highest id copied are added (one
 * indexed range read). Anything else (a row removed, or one committed late under a lower id than
 * one copied): the copy is dropped and loaded again, lookups going to the table meanwhile. This
 * process's own add() and remove() make the next lookup ask at once, so its own changes count at once.
 */
import type { Knex } from 'knex';
import { PdqIndex, type PdqEntry, type PdqHit } from './pdq-index';

/** Past this many listed hashes, lookups stay with the table (about 68 MB of index at 500,000). */
export const MIRROR_MAX_ENTRIES = 500_000;
/** How stale the copy may be: another instance's change counts here within this long. */
export const MIRROR_FRESH_MS = 1000;
/** Rows read a query while loading (each a short hold of SQLite's, which runs on this thread). */
const LOAD_PAGE = 10_000;

export interface PdqMirror {
  /** The closest listed hash within `distance`, or 'unknown' when the copy cannot answer (the table must). */
  closest(hash: string, distance: number): Promise<PdqHit | null | 'unknown'>;
  /** This process changed the table: the next lookup asks first (and a removal is never matched meanwhile). */
  changed(removed: boolean): void;
  /** What the copy holds (for tests and the bench). */
  state(): { entries: number; bytes: number; loaded: boolean };
}

export function createPdqMirror(knex: () => Knex, table: () => string, warn: (message: string) => void): PdqMirror {
  let index: PdqIndex | null = null;
  /** The highest id copied. */
  let copiedUpTo = 0;
  let askedAt = -Infinity;
  let asking: Promise<void> | null = null;
  let loading: Promise<void> | null = null;

  /**
   * The table's PDQ rows as count, highest id and sum of ids. Count and highest id alone can look
   * unchanged after a row committed late under a lower id and a removal: the sum tells.
   */
  async function tableState(): Promise<{ count: number; maxId: number; idSum: number }> {
    const row = (await knex()(table()).where('kind', 'pdq').count({ n: '*' }).max({ m: 'id' }).sum({ s: 'id' }).first()) as
      | { n: number | string; m: number | string | null; s: number | string | null }
      | undefined;
    return { count: Number(row?.n ?? 0), maxId: Number(row?.m ?? 0), idSum: Number(row?.s ?? 0) };
  }

  /** The sum of the ids the copy holds (see tableState). */
  let copiedSum = 0;
  const sumOf = (entries: PdqEntry[]) => entries.reduce((sum, entry) => sum + entry.id, 0);

  /** The PDQ rows with ids in (after, upTo], in pages. */
  async function rowsBetween(after: number, upTo: number): Promise<PdqEntry[]> {
    const entries: PdqEntry[] = [];
    for (let from = after; ; ) {
      const rows: Array<{ id: number | string; hash: string }> = await knex()(table())
        .select('id', 'hash')
        .where('kind', 'pdq')
        .where('id', '>', from)
        .where('id', '<=', upTo)
        .orderBy('id')
        .limit(LOAD_PAGE);
      for (const row of rows) entries.push({ id: Number(row.id), hash: row.hash });
      if (rows.length < LOAD_PAGE) return entries;
      from = Number(rows[rows.length - 1].id);
    }
  }

  /** Loads the whole copy in the background; lookups go to the table until it is in. */
  function reload(maxId: number): void {
    index = null;
    loading ??= rowsBetween(0, maxId)
      .then((entries) => {
        index = new PdqIndex(entries);
        copiedUpTo = maxId;
        copiedSum = sumOf(entries);
        // Whatever happened while loading is asked about at the next lookup.
        askedAt = -Infinity;
      })
      .catch((error: Error) => warn(`image-api: the blocklist's PDQ hashes were not loaded: ${error.message}`))
      .finally(() => {
        loading = null;
      });
  }

  async function refresh(): Promise<void> {
    const { count, maxId, idSum } = await tableState();
    if (count > MIRROR_MAX_ENTRIES || count === 0) {
      index = count === 0 ? new PdqIndex() : null;
      copiedUpTo = maxId;
      copiedSum = 0;
      return;
    }
    if (index !== null && index.size === count && copiedUpTo === maxId && copiedSum === idSum) return;
    if (index !== null && maxId > copiedUpTo && count > index.size) {
      const added = await rowsBetween(copiedUpTo, maxId);
      if (index !== null && index.size + added.length === count && copiedSum + sumOf(added) === idSum) {
        index.add(added);
        copiedUpTo = maxId;
        copiedSum += sumOf(added);
        return;
      }
    }
    reload(maxId);
  }

  return {
    async closest(hash, distance) {
      if (loading === null && Date.now() - askedAt >= MIRROR_FRESH_MS) {
        askedAt = Date.now();
        asking ??= refresh()
          .catch((error: Error) => {
            // The table answers (or fails) as it did before the copy.
            index = null;
            askedAt = -Infinity;
            warn(`image-api: the blocklist's PDQ copy was not refreshed: ${(error as Error).message}`);
          })
          .finally(() => {
            asking = null;
          });
      }
      if (asking) await asking;
      return index === null || loading !== null ? 'unknown' : index.closest(hash, distance);
    },
    changed(removed) {
      askedAt = -Infinity;
      if (removed) index = null;
    },
    state: () => ({ entries: index?.size ?? 0, bytes: index?.bytes ?? 0, loaded: index !== null && loading === null }),
  };
}
