/**
 * The blocklist: fingerprints of images no upload may match (content type `block`). Exact ones are
 * the SHA-256 and MD5 of a file; perceptual ones are PDQ hashes (moderation/pdq.ts), matched within a
 * Hamming distance (31 by default, PDQ's usual threshold; at most 47).
 *
 * A perceptual lookup stays cheap as the list grows by multi-index hashing: a hash's 16 words of 16
 * bits each are columns of their own, each indexed. Two hashes within d bits differ by at most
 * floor(d / 16) bits in at least one word (pigeonhole), so the candidates are the rows whose word i,
 * for some i, is the query's word i or one of its neighbours within that radius: 17 values a word
 * for d ≤ 31, 137 for d ≤ 47. One query, `b_0 IN (…) OR b_1 IN (…) …`, read from the 16 indexes; the
 * exact distance is then computed here on those few rows (about 400 of 100,000 random hashes at 31).
 *
 * That query took 3.2 ms of SQLite's (this thread's) time at 100,000 entries: an upload's lookup is
 * answered instead from this process's copy of the PDQ hashes, indexed the same way in memory
 * (pdq-mirror.ts, pdq-index.ts: about 0.05 ms), kept within a second of the table. The table answers
 * while the copy loads, and past its memory bound. Exact hashes stay with the table's unique index.
 */
import type { Core } from '@strapi/strapi';
import { BLOCK_UID } from '../config/constants';
import { createRowWriter, type Data, type Knex } from '../database/sql-rows';
import { transaction } from '../database/transaction';
import { getConfig } from '../get-service';
import { hammingDistance, pdqBands, PDQ_MIN_QUALITY } from './pdq';
import { createPdqMirror } from './pdq-mirror';

export type BlockKind = 'sha256' | 'md5' | 'pdq';
export const BLOCK_KINDS: readonly BlockKind[] = ['sha256', 'md5', 'pdq'];
export type BlockSource = 'takedown' | 'import';

/** Past this, a word's neighbours (3 bits: 697 values) make the lookup as costly as a scan. */
export const MAX_BLOCK_DISTANCE = 47;

/** What an upload's bytes are, as check() compares them. */
export interface Fingerprints {
  /** SHA-256 of each form of the file the list may know (the bytes sent, the bytes stored). */
  sha256: string[];
  md5: string[];
  /** The PDQ hash, or null when it was not computed (nothing perceptual listed, or a quality under 50). */
  pdq: string | null;
}

export interface BlockMatch {
  id: number;
  kind: BlockKind;
  /** The listed hash that matched. */
  hash: string;
  /** 0 for an exact match; the Hamming distance for a perceptual one. */
  distance: number;
  source: BlockSource;
  /** The taken-down image's id_encoded. */
  imageId: string | null;
  note: string | null;
}

export interface BlockEntry {
  kind: BlockKind;
  hash: string;
}

export interface BlockOrigin {
  source: BlockSource;
  imageId?: string;
  note?: string;
}

export interface ImportResult {
  added: number;
  /** Lines whose hash was listed already, or came earlier in the text. */
  duplicates: number;
  /** Line numbers (from 1) of the first INVALID_LINES_SHOWN lines that hold no hash of the kind. */
  invalid: number[];
  invalidCount: number;
}

const HEX_LENGTH: Record<BlockKind, number> = { sha256: 64, md5: 32, pdq: 64 };
// `b_0`, not `b0`: Strapi names columns in snake case, and lodash writes `b0` as `b_0`.
const BANDS = Array.from({ length: 16 }, (_, i) => `b_${i}`);
export const INVALID_LINES_SHOWN = 20;
/**
 * Rows an INSERT carries: 25 columns each, 12,500 placeholders, under every database's limit
 * (SQLite's 32,766; PostgreSQL's and MySQL's 65,535).
 */
const INSERT_BATCH = 500;
/**
 * An import adding this many rows has the database's statistics of the table refreshed at once. Until
 * PostgreSQL's autovacuum gets to it, its planner believes the table is as small as before and reads
 * all of it: measured at 100,000 PDQ entries, a lookup took 47 ms by a sequential scan, 3.7 ms from
 * the indexes after ANALYZE (tools/bench/blocklist.js).
 */
const ANALYZE_AFTER = 1000;
/** A kind not listed is asked again after this long (listedKinds). */
const NONE_LISTED_TTL_MS = 1000;

/** `hash` as stored (lower case) when it is a hash of `kind`, else null. */
export function normalizeHash(kind: BlockKind, hash: string): string | null {
  const lower = hash.trim().toLowerCase();
  return lower.length === HEX_LENGTH[kind] && /^[0-9a-f]+$/.test(lower) ? lower : null;
}

/** A 16-bit word and every word within `radius` bits of it (radius 0, 1 or 2). */
export function neighbours(word: number, radius: number): number[] {
  const values = [word];
  for (let i = 0; i < 16 && radius >= 1; i++) {
    values.push(word ^ (1 << i));
    for (let j = i + 1; j < 16 && radius >= 2; j++) values.push(word ^ (1 << i) ^ (1 << j));
  }
  return values;
}

/**
 * One line of a list: the hash first, then optionally a comma or blanks and anything (PDQ lists
 * carry `,quality`; sha256sum and md5sum print `hash  file`). Blank lines and `#` comments: 'skip'.
 */
export function parseListLine(kind: BlockKind, line: string): string | null | 'skip' {
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return 'skip';
  const [first, second] = text.split(/[,\s]+/, 2);
  const hash = normalizeHash(kind, first);
  if (kind !== 'pdq' || hash === null) return hash;
  // A PDQ of low quality (its `,quality` under PDQ_MIN_QUALITY), or of hardly any set bits (every
  // flat picture hashes to zeros), would match pictures that have nothing to do with it: invalid.
  if (second !== undefined && /^\d+$/.test(second) && Number(second) < PDQ_MIN_QUALITY) return null;
  return bitCount(hash) < MIN_PDQ_BITS ? null : hash;
}

/** Fewest set bits a listed PDQ may have (a real picture's has about half of its 256). */
const MIN_PDQ_BITS = 32;

const bitCount = (hex: string) => [...hex].reduce((bits, digit) => bits + [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4][parseInt(digit, 16)], 0);

/**
 * The rows that may lie within `distance` of `pdq`: some word within floor(distance / 16) bits of
 * the query's (the multi-index lookup; tests/api/operations/indexes.test.ts checks its plan).
 */
export function candidatesQuery(db: Knex, table: string, pdq: string, distance: number) {
  const radius = Math.floor(distance / 16);
  const words = pdqBands(pdq);
  return db(table).where((query) => {
    BANDS.forEach((band, i) => query.orWhereIn(band, neighbours(words[i], radius)));
  });
}

interface BlockRow {
  id: number;
  kind: BlockKind;
  hash: string;
  source: BlockSource;
  image_id: string | null;
  note: string | null;
}

const toMatch = (row: BlockRow, distance: number): BlockMatch => ({
  id: Number(row.id),
  kind: row.kind,
  hash: row.hash,
  distance,
  source: row.source,
  imageId: row.image_id ?? null,
  note: row.note ?? null,
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const { model, toRow } = createRowWriter(strapi);
  const table = () => model(BLOCK_UID).tableName;
  const knex = (): Knex => strapi.db.connection;
  const MATCH_COLUMNS = ['id', 'kind', 'hash', 'source', 'image_id', 'note'];

  // Which kinds the list holds. A cache of the list itself, not of an image or a key: nothing signals
  // its changes but this service's own add() and remove(), which keep it; another instance's are met
  // by the TTL (see listedKinds).
  const held: Record<BlockKind, boolean> = { sha256: false, md5: false, pdq: false };
  let askedAt = 0;
  let asking: Promise<Record<BlockKind, boolean>> | null = null;

  /** Refreshes the planner's statistics of the table (SQLite plans the lookup alike without them). */
  async function analyze(): Promise<void> {
    const client = strapi.db.dialect.client as string;
    if (client === 'postgres') await knex().raw('analyze ??', [table()]);
    else if (client === 'mysql') await knex().raw('analyze table ??', [table()]);
  }

  /** The listed hashes among `hashes` of `kind` (one lookup by the unique index per batch). */
  async function listed(db: Knex, kind: BlockKind, hashes: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < hashes.length; start += INSERT_BATCH) {
      const rows: Array<{ hash: string }> = await db(table())
        .select('hash')
        .where('kind', kind)
        .whereIn('hash', hashes.slice(start, start + INSERT_BATCH));
      for (const { hash } of rows) found.add(hash);
    }
    return found;
  }

  /** Inserts what is not listed yet; returns how many rows it added. */
  async function insertNew(db: Knex, entries: BlockEntry[], origin: BlockOrigin): Promise<number> {
    const now = new Date();
    let added = 0;
    for (const kind of BLOCK_KINDS) {
      const hashes = [...new Set(entries.filter((entry) => entry.kind === kind).map((entry) => entry.hash))];
      const known = await listed(db, kind, hashes);
      const fresh = hashes.filter((hash) => !known.has(hash));
      for (let start = 0; start < fresh.length; start += INSERT_BATCH) {
        const rows = fresh.slice(start, start + INSERT_BATCH).map((hash) => {
          const data: Data = {
            kind,
            hash,
            note: origin.note ?? null,
            source: origin.source,
            image_id: origin.imageId ?? null,
            createdAt: now,
            updatedAt: now,
            publishedAt: now,
          };
          if (kind === 'pdq') pdqBands(hash).forEach((word, i) => (data[BANDS[i]] = word));
          return toRow(BLOCK_UID, data);
        });
        // A row another request listed meanwhile is skipped, not an error (the unique index decides).
        await db(table()).insert(rows).onConflict(['kind', 'hash']).ignore();
      }
      added += fresh.length;
      if (fresh.length > 0) held[kind] = true;
    }
    return added;
  }

  /**
   * Which kinds the list holds: an upload computes a kind's hash only when some entry of it is
   * listed (a PDQ costs a decode of the medium variant and ~2 ms of JavaScript). Cached: a kind
   * listed stays so (entries are rarely removed: remove() forgets it here; another instance's removal
   * costs uploads a hash nothing matches); a kind not listed is asked again once NONE_LISTED_TTL_MS
   * has passed, so another instance's first takedown is heard within a second, and this instance's
   * own add() at once. One lookup at a time (an index seek per kind not listed), however many
   * uploads ask.
   */
  function listedKinds(): Promise<Record<BlockKind, boolean>> {
    const unknown = BLOCK_KINDS.filter((kind) => !held[kind]);
    if (unknown.length === 0 || Date.now() - askedAt < NONE_LISTED_TTL_MS) return Promise.resolve({ ...held });
    asking ??= Promise.all(unknown.map((kind) => knex()(table()).select('id').where('kind', kind).first()))
      .then((rows) => {
        rows.forEach((row, i) => row && (held[unknown[i]] = true));
        askedAt = Date.now();
        return { ...held };
      })
      .finally(() => {
        asking = null;
      });
    return asking;
  }

  const mirror = createPdqMirror(knex, table, (message) => strapi.log.warn(message));

  /** The listed PDQ hash closest to `pdq`, within `distance`: from the copy in memory when it can answer. */
  async function perceptualMatch(pdq: string, distance: number): Promise<BlockMatch | null> {
    const hit = await mirror.closest(pdq, distance);
    if (hit === null) return null;
    if (hit !== 'unknown') {
      // The entry's details, by its id (a match is rare); gone since (removed): the table decides.
      const row: BlockRow | undefined = await knex()(table()).select(MATCH_COLUMNS).where('id', hit.id).first();
      if (row) return toMatch(row, hit.distance);
    }
    return perceptualMatchInTable(pdq, distance);
  }

  /** The listed PDQ hash closest to `pdq`, within `distance`, as the table's indexes find it. */
  async function perceptualMatchInTable(pdq: string, distance: number): Promise<BlockMatch | null> {
    const candidates: BlockRow[] = await candidatesQuery(knex(), table(), pdq, distance).select(MATCH_COLUMNS);
    let best: BlockMatch | null = null;
    for (const row of candidates) {
      const d = hammingDistance(pdq, row.hash);
      if (d <= distance && (best === null || d < best.distance)) best = toMatch(row, d);
    }
    return best;
  }

  return {
    /**
     * The entry an upload with these fingerprints matches, or null: any exact hash listed (a match by
     * SHA-256 first, then MD5), else the closest PDQ hash within `blockDistance` bits (0..47; the
     * option `moderation.blockDistance` unless given).
     */
    async check(fingerprints: Fingerprints, blockDistance: number = getConfig(strapi).moderation.blockDistance): Promise<BlockMatch | null> {
      if (!Number.isInteger(blockDistance) || blockDistance < 0 || blockDistance > MAX_BLOCK_DISTANCE) {
        throw new Error(`blocklist: a distance of 0 to ${MAX_BLOCK_DISTANCE} bits, not ${blockDistance}`);
      }
      const exact: Array<[BlockKind, string[]]> = (['sha256', 'md5'] as const).map((kind) => [
        kind,
        fingerprints[kind].map((hash) => normalizeHash(kind, hash)).filter((hash): hash is string => hash !== null),
      ]);
      if (exact.some(([, hashes]) => hashes.length > 0)) {
        const rows: BlockRow[] = await knex()(table())
          .select(MATCH_COLUMNS)
          .where((query) => {
            for (const [kind, hashes] of exact) if (hashes.length > 0) query.orWhere((q) => q.where('kind', kind).whereIn('hash', hashes));
          });
        const row = rows.find((r) => r.kind === 'sha256') ?? rows[0];
        if (row) return toMatch(row, 0);
      }
      const pdq = fingerprints.pdq === null ? null : normalizeHash('pdq', fingerprints.pdq);
      if (pdq === null || !(await listedKinds()).pdq) return null;
      return perceptualMatch(pdq, blockDistance);
    },

    /**
     * Lists `entries` (in `trx`, or a transaction of its own); those listed already are skipped.
     * Returns how many it added. Throws on a hash that is not of its kind, listing none.
     */
    async add(entries: BlockEntry[], origin: BlockOrigin, trx?: Knex): Promise<number> {
      const normalized = entries.map(({ kind, hash }) => {
        const stored = BLOCK_KINDS.includes(kind) ? normalizeHash(kind, hash) : null;
        if (stored === null) throw new Error(`blocklist: "${hash}" is not a ${kind} hash`);
        return { kind, hash: stored };
      });
      if (normalized.length === 0) return 0;
      if (!trx) return transaction(strapi, (own) => insertNew(own, normalized, origin)).finally(() => mirror.changed(false));
      const added = await insertNew(trx, normalized, origin);
      // The copy in memory asks again once the caller's transaction has committed (knex's promise of its end).
      (trx as Knex & { executionPromise?: Promise<unknown> }).executionPromise?.then(
        () => mirror.changed(false),
        () => undefined
      );
      return added;
    },

    /**
     * Imports a list of `kind` hashes, one a line (see parseListLine), in one transaction: all of its
     * valid lines or none.
     */
    async importText(kind: BlockKind, text: string, note?: string): Promise<ImportResult> {
      if (!BLOCK_KINDS.includes(kind)) throw new Error(`blocklist: no kind "${kind}"`);
      const hashes: string[] = [];
      const invalid: number[] = [];
      let invalidCount = 0;
      text.replace(/^\uFEFF/, '').split(/\r?\n|\r/).forEach((line, index) => {
        const hash = parseListLine(kind, line);
        if (hash === 'skip') return;
        if (hash === null) {
          invalidCount++;
          if (invalid.length < INVALID_LINES_SHOWN) invalid.push(index + 1);
        } else hashes.push(hash);
      });
      const added = hashes.length === 0 ? 0 : await transaction(strapi, (trx) => insertNew(trx, hashes.map((hash) => ({ kind, hash })), { source: 'import', note }));
      mirror.changed(false);
      if (added >= ANALYZE_AFTER) await analyze();
      return { added, duplicates: hashes.length - added, invalid, invalidCount };
    },

    /** Removes entries by id; returns how many went. */
    async remove(ids: number[]): Promise<number> {
      if (ids.length === 0) return 0;
      const removed = await knex()(table()).whereIn('id', ids).del();
      mirror.changed(true);
      // The kinds are asked again at the next look.
      for (const kind of BLOCK_KINDS) held[kind] = false;
      askedAt = 0;
      return removed;
    },

    /** Entries of each kind. */
    async count(): Promise<Record<BlockKind, number>> {
      const rows: Array<{ kind: BlockKind; n: number | string }> = await knex()(table()).select('kind').count({ n: '*' }).groupBy('kind');
      const counts: Record<BlockKind, number> = { sha256: 0, md5: 0, pdq: 0 };
      for (const { kind, n } of rows) counts[kind] = Number(n);
      return counts;
    },

    listedKinds,

    /** The PDQ lookup as the table answers it, without the copy in memory (tests, tools/bench/blocklist.js). */
    perceptualMatchInTable,

    /** What the copy in memory holds (tests, the bench). */
    mirrorState: () => mirror.state(),
  };
};
