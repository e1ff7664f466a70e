/**
 * Purges that cannot be lost (docs/deployment.md, "Caching images"). A deletion (delete link, API,
 * Image API page, Content Manager, Media Library, expiry) records in its own transaction what the
 * caches in front must forget (content type `purge`): its images' tags, and the URLs of their files
 * a CDN serves from the bucket (which carry no tags). Then:
 * - the instance that recorded it sends it once the files are gone, in the background: no answer
 *   waits for a CDN. The row is that instance's for OWNED_MS;
 * - every instance polls what is due every POLL_MS, so a purge whose recorder died, or that failed,
 *   is sent by whichever instance comes first, after a restart too;
 * - an attempt takes the row by moving its due time by the backoff (a conditional UPDATE: one
 *   instance wins); if it fails, the row is due again then (1 s, 2 s, 4 s, ... at most 5 minutes);
 * - each purge goes in three rounds (ROUND_DELAYS_MS): at once; again once every other instance's
 *   lookup of the image has run out (delivery/image-sources.ts keeps one SOURCE_TTL_MS), since until
 *   then another instance may have answered a cache from it; and again after a render begun before
 *   the deletion has had time to finish. The instance that acknowledged a round sends the next when
 *   it is due (its own poll leaves it to that); any other instance's poll does if it cannot;
 * - a purge not acknowledged once the caches' max-age (`cacheMaxAgeSeconds`) has passed is given up:
 *   no cache keeps the answers longer. Failures and give-ups are logged and counted (`/_metrics`).
 * Purges are idempotent: an attempt sent twice (an instance slower than its hold) costs a request.
 */
import type { Core } from '@strapi/strapi';
import type { Knex as KnexTypes } from 'knex';
import { PURGE_UID, SOURCE_TTL_MS } from '../config/constants';
import { getConfig, getService } from '../get-service';
import { databaseClock } from '../database/database-clock';
import { createRowWriter, type Knex } from '../database/sql-rows';
import { periodic } from '../operations/periodic';
import { configuredPurgers } from './configured-purgers';
import { imageTag } from './cache-tags';
import type { PurgeBatch, Purger, PurgerName } from './purger';

/** Every instance looks for purges due this often (with a purger configured). */
export const POLL_MS = 500;
/** A new purge is its recorder's to send for this long; after it, any instance's. */
export const OWNED_MS = 1000;
/**
 * After round 1 is acknowledged, round 2 is due this much later (other instances' lookups have run
 * out), and round 3 this much after round 2 (renders under way at the deletion have finished).
 */
export const ROUND_DELAYS_MS = [SOURCE_TTL_MS + 200, 10_000] as const;
/**
 * New purges are sent together when they come this close: a burst of deletions (a key's holder
 * deleting in a loop) costs one request per purger every COALESCE_MS, not one per image, and a CDN's
 * purge quota lasts.
 */
export const COALESCE_MS = 100;
/**
 * A row owing only purgers this instance lacks (configured elsewhere: `purge` should be the same on
 * every instance) is left to the others this long, so it never stands in the way of rows this
 * instance can send.
 */
const NOT_MINE_MS = 10_000;
/** Rows a poll sends at once (their tags and URLs in one purge per purger). */
const BATCH = 50;

/** The wait before attempt `attempts + 1` of a round. */
export const backoffMs = (attempts: number): number => Math.min(5 * 60_000, 1000 * 2 ** Math.max(0, attempts - 1));

/** What a deletion tells the journal of one image. */
export interface PurgeTarget {
  idEncoded: string;
  /** Every URL of its files (original, variants): those a CDN serves from the bucket are purged by URL. */
  fileUrls: string[];
}

interface PurgeRow {
  id: number;
  tags: string[];
  urls: string[];
  purgers: PurgerName[];
  owed: PurgerName[];
  round: number;
  attempts: number;
}

const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const { model, toRow } = createRowWriter(strapi);
  const clock = databaseClock(strapi);
  const table = () => model(PURGE_UID).tableName;
  const column = (attribute: string) => model(PURGE_UID).attributes[attribute]?.columnName ?? attribute;
  let purgers: Purger[] | null = null;
  const configured = () => (purgers ??= configuredPurgers(getConfig(strapi)));
  const sending = new Set<Promise<unknown>>();
  /**
   * The rounds this instance sends when they are due (a new purge's first, the next after it
   * acknowledged one), by the COALESCE_MS slot they fall in: those of one slot go together.
   */
  const rounds = new Map<number, { due: Array<{ id: number; round: number }>; timer: NodeJS.Timeout }>();
  /**
   * The purges in those slots, until their slot's send is over: the poll leaves them to it. Both
   * taking rows of one slot at once split it (the poll won one, the slot's send the rest: two
   * requests where one was due); another instance's poll still takes them if this one stops.
   */
  const inSlots = new Map<number, number>();
  const holdInSlot = (id: number, by: 1 | -1) => {
    const count = (inSlots.get(id) ?? 0) + by;
    if (count > 0) inSlots.set(id, count);
    else inSlots.delete(id);
  };

  /** The base of the URLs a CDN in front of the bucket serves (the S3 provider's `baseUrl`), if any. */
  const cdnBase = (): string | null => {
    const upload = strapi.config.get('plugin::upload') as { provider?: string; providerOptions?: { baseUrl?: unknown } } | undefined;
    const base = upload?.provider && upload.provider !== 'local' ? upload.providerOptions?.baseUrl : null;
    return typeof base === 'string' && /^https?:\/\//.test(base) ? base.replace(/\/*$/, '/') : null;
  };

  const readRow = (row: Record<string, unknown>): PurgeRow => ({
    id: Number(row.id),
    tags: parsed<string[]>(row[column('tags')]),
    urls: parsed<string[]>(row[column('urls')]),
    purgers: parsed<PurgerName[]>(row[column('purgers')]),
    owed: parsed<PurgerName[]>(row[column('owed')]),
    round: Number(row[column('round')]),
    attempts: Number(row[column('attempts')]),
  });
  const rowColumns = () => ['id', ...['tags', 'urls', 'purgers', 'owed', 'round', 'attempts'].map(column)];
  /** Purger names already warned of, as owed here and configured elsewhere. */
  const warnedOf = new Set<string>();

  /** Takes a row for one attempt; false when another instance (or attempt) took it first. */
  async function take(row: PurgeRow): Promise<boolean> {
    const taken = await strapi.db
      .connection(table())
      .where({ id: row.id, [column('round')]: row.round, [column('attempts')]: row.attempts })
      .update({ [column('attempts')]: row.attempts + 1, [column('due_at')]: clock.later(backoffMs(row.attempts + 1)) });
    return Number(taken) === 1;
  }

  /** One purge per purger for the rows that owe it; the outcome of each purger (null: acknowledged). */
  async function send(rows: PurgeRow[]): Promise<Map<PurgerName, Error | null>> {
    const metrics = getService(strapi, 'metrics');
    const outcomes = new Map<PurgerName, Error | null>();
    await Promise.all(
      configured().map(async (purger) => {
        const owing = rows.filter((row) => row.owed.includes(purger.name));
        if (owing.length === 0) return;
        const batch: PurgeBatch = { tags: [...new Set(owing.flatMap((row) => row.tags))], urls: [...new Set(owing.flatMap((row) => row.urls))] };
        try {
          await purger.purge(batch);
          outcomes.set(purger.name, null);
          metrics.purged(purger.name, 'sent', owing.length);
          const late = Math.max(...owing.map((row) => row.attempts));
          if (late > 1) strapi.log.info(`image-api: purge of ${batch.tags.length} image(s) by ${purger.name} went through at attempt ${late}`);
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          outcomes.set(purger.name, failure);
          metrics.purged(purger.name, 'failed', owing.length);
          const attempt = Math.max(...owing.map((row) => row.attempts));
          strapi.log.warn(
            `image-api: purge of ${batch.tags.length} image(s) by ${purger.name} failed (attempt ${attempt}; next in ${backoffMs(attempt) / 1000} s): ${failure.message.replace(/^image-api: /, '')}`
          );
        }
      })
    );
    return outcomes;
  }

  /** After an attempt: the row's next round (returned, for this instance to send), its end, or what it still owes. */
  async function settle(row: PurgeRow, outcomes: Map<PurgerName, Error | null>): Promise<{ id: number; round: number; delayMs: number } | null> {
    const knex = strapi.db.connection;
    const left = row.owed.filter((name) => outcomes.get(name) !== null);
    const same = { id: row.id, [column('round')]: row.round };
    if (left.length > 0) {
      const failures = left.map((name) => outcomes.get(name)).filter((error): error is Error => Boolean(error));
      await knex(table())
        .where({ ...same, [column('attempts')]: row.attempts })
        .update({ [column('owed')]: JSON.stringify(left), [column('last_error')]: failures.map((failure) => failure.message).join('; ').slice(0, 2000) || null });
    } else if (row.round <= ROUND_DELAYS_MS.length) {
      const delay = ROUND_DELAYS_MS[row.round - 1];
      const next = row.round + 1;
      const moved = await knex(table())
        .where(same)
        .update({
          [column('round')]: next,
          [column('attempts')]: 0,
          [column('owed')]: JSON.stringify(row.purgers),
          [column('due_at')]: clock.later(delay),
          [column('last_error')]: null,
        });
      if (Number(moved) === 1) return { id: row.id, round: next, delayMs: delay };
    } else {
      await knex(table()).where(same).del();
    }
    return null;
  }

  /** Sends the rows `select` picks that owe a purger of this instance's; returns how many it sent. */
  async function sendRows(select: (query: KnexTypes.QueryBuilder) => KnexTypes.QueryBuilder, leave?: Map<number, number>): Promise<number> {
    const mine = new Set(configured().map((purger) => purger.name));
    const selected = ((await select(strapi.db.connection(table()).select(rowColumns()))) as Array<Record<string, unknown>>).map(readRow);
    const found = leave ? selected.filter((row) => !leave.has(row.id)) : selected;
    const taken: PurgeRow[] = [];
    const notMine: PurgeRow[] = [];
    for (const row of found) {
      if (!row.owed.some((name) => mine.has(name))) notMine.push(row);
      else if (await take(row)) taken.push({ ...row, attempts: row.attempts + 1 });
    }
    if (notMine.length > 0) await leaveToOthers(notMine);
    if (taken.length === 0) return 0;
    const outcomes = await send(taken);
    const next: Array<{ id: number; round: number; delayMs: number }> = [];
    for (const row of taken) {
      const round = await settle(row, outcomes);
      if (round) next.push(round);
    }
    // Timed from one instant: the rounds of purges sent together go together again.
    const now = Date.now();
    for (const round of next) sendLater(round.id, round.round, round.delayMs, now);
    return taken.length;
  }

  /** Rows owing only purgers configured elsewhere: due again for them in NOT_MINE_MS, and said once. */
  async function leaveToOthers(rows: PurgeRow[]): Promise<void> {
    for (const row of rows) {
      await strapi.db
        .connection(table())
        .where({ id: row.id, [column('round')]: row.round, [column('attempts')]: row.attempts })
        .update({ [column('due_at')]: clock.later(NOT_MINE_MS) });
    }
    const names = [...new Set(rows.flatMap((row) => row.owed))].filter((name) => !warnedOf.has(name));
    if (names.length > 0) {
      for (const name of names) warnedOf.add(name);
      strapi.log.warn(`image-api: purges are owed to ${names.join(', ')}, which this instance's option purge does not configure: set the same purge option on every instance`);
    }
  }

  /** Gives up the purges still owed once the caches' max-age has passed since their deletion. */
  async function abandonExpired(): Promise<void> {
    const bound = getConfig(strapi).cacheMaxAgeSeconds * 1000;
    const query = strapi.db.connection(table()).select(rowColumns()).limit(BATCH);
    const stale = (await clock.olderThan(query, model(PURGE_UID).attributes.createdAt?.columnName ?? 'created_at', bound)).map(readRow);
    if (stale.length === 0) return;
    await strapi.db.connection(table()).whereIn('id', stale.map((row) => row.id)).del();
    for (const row of stale) for (const name of row.owed) getService(strapi, 'metrics').purged(name, 'abandoned', 1);
    strapi.log.error(
      `image-api: gave up ${stale.length} purge(s) after ${bound / 1000} s (cacheMaxAgeSeconds): the caches in front may keep ${stale.reduce((n, row) => n + row.tags.length, 0)} deleted image(s) until their max-age`
    );
  }

  const poll = periodic(
    async () => {
      await abandonExpired();
      let sent = 0;
      for (let batch = BATCH; batch === BATCH; ) {
        // A slot's rows are due in the table only from a moment before its timer fires: left out of
        // what is found rather than named in the query (however many there are).
        batch = await sendRows((query) => clock.olderThan(query, column('due_at'), 0).orderBy(column('due_at')).limit(BATCH), inSlots);
        sent += batch;
      }
      return sent;
    },
    (error) => strapi.log.error(`image-api: sending purges failed: ${messageOf(error)}`)
  );

  const track = (work: Promise<unknown>) => {
    sending.add(work);
    void work.finally(() => sending.delete(work));
  };

  /** Sends round `round` of the purge `id` in `delayMs` (with others due then), unless another instance took it first. */
  function sendLater(id: number, round: number, delayMs: number, from = Date.now()): void {
    const slot = Math.ceil((from + delayMs) / COALESCE_MS);
    holdInSlot(id, 1);
    const pending = rounds.get(slot);
    if (pending) {
      pending.due.push({ id, round });
      return;
    }
    const due = [{ id, round }];
    const timer = setTimeout(() => {
      rounds.delete(slot);
      track(
        sendRows((query) =>
          query.where((any) => {
            for (const row of due) any.orWhere({ id: row.id, [column('round')]: row.round, [column('attempts')]: 0 });
          })
        )
          .catch((error) => strapi.log.error(`image-api: sending a purge failed: ${messageOf(error)}`))
          .finally(() => due.forEach((row) => holdInSlot(row.id, -1)))
      );
    }, Math.max(0, slot * COALESCE_MS - Date.now()));
    timer.unref();
    rounds.set(slot, { due, timer });
  }

  return {
    /** Whether any purger is configured (else nothing is recorded). */
    enabled: (): boolean => configured().length > 0,

    /**
     * In the transaction that deletes the images: records their purge. Returns its id, or null when
     * no purger is configured.
     */
    async record(trx: Knex, targets: PurgeTarget[]): Promise<number | null> {
      const purgerNames = configured().map((purger) => purger.name);
      if (purgerNames.length === 0 || targets.length === 0) return null;
      const base = cdnBase();
      const urls = base ? targets.flatMap(({ fileUrls }) => fileUrls.filter((url) => url.startsWith(base))) : [];
      const now = clock.now();
      const row = toRow(PURGE_UID, {
        tags: targets.map(({ idEncoded }) => imageTag(idEncoded)),
        urls,
        purgers: purgerNames,
        owed: purgerNames,
        round: 1,
        attempts: 0,
        due_at: clock.later(OWNED_MS),
        createdAt: now,
        updatedAt: now,
        publishedAt: now,
      });
      const [inserted] = await trx(table()).insert(row, ['id']);
      return Number(typeof inserted === 'object' ? (inserted as { id: number }).id : inserted);
    },

    /**
     * Sends the purge recorded as `id` now, in the background (its deletion has committed and its
     * files are gone). Nothing waits for it; a failure leaves the row to the polls.
     */
    sendSoon(id: number | null): void {
      if (id !== null) sendLater(id, 1, COALESCE_MS);
    },

    /** Sends what is due now (the poll; tests call it). */
    run: (): Promise<number> => poll.run(),

    /** Purges recorded and not yet acknowledged (every round): the metrics' gauge. */
    async owed(): Promise<number> {
      if (!this.enabled()) return 0;
      const [{ count }] = await strapi.db.connection(table()).count({ count: '*' });
      return Number(count);
    },

    /** Polls every POLL_MS while a purger is configured. */
    start(): void {
      if (this.enabled()) poll.start(POLL_MS, () => []);
    },

    /** Stops polling; waits for the sends under way. */
    async stop(): Promise<void> {
      // What waits for its slot is in the database: the next poll, here or elsewhere, sends it.
      for (const { timer } of rounds.values()) clearTimeout(timer);
      rounds.clear();
      inSlots.clear();
      await poll.stop();
      await Promise.all([...sending]);
    },
  };
};
