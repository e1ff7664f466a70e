/**
 * Every lookup the plugin makes has an index, created by the plugin's own content types on whichever
 * database the app uses; and the database plans those lookups with it.
 */
import type { Knex } from 'knex';
import { startApp, type TestApp } from '../../helpers/app';
import { candidatesQuery } from '../../../plugins/image-api/server/src/moderation/blocklist';
import { startChildApp } from '../../helpers/child-app';
import { inspect } from '../../helpers/db-inspector';
import { createScratchDb, type TestDb } from '../../../tools/support/app/scratch-db';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

const knex = () => app.strapi.db.connection;
const client = () => app.db.client;

const PLUGIN_INDEXES: Array<[string, string, string[], boolean]> = [
  ['image_api_images', 'image_api_images_id_encoded_index', ['id_encoded'], true],
  ['image_api_images', 'image_api_images_name_index', ['name'], true],
  ['image_api_images', 'image_api_images_expires_at_index', ['expires_at'], false],
  ['image_api_keys', 'image_api_keys_key_hash_index', ['key_hash'], true],
  ['image_api_images', 'image_api_images_views_index', ['views'], false],
  ['image_api_images', 'image_api_images_created_at_index', ['created_at'], false],
  ['image_api_images', 'image_api_images_source_digest_index', ['source_digest'], true],
  ['image_api_images', 'image_api_images_review_since_index', ['review_since'], false],
  ['image_api_usage_days', 'image_api_usage_days_day_key_index', ['day', 'key_id'], true],
  ['image_api_usage_days', 'image_api_usage_days_key_day_index', ['key_id', 'day'], false],
  ['image_api_pending_uploads', 'image_api_pending_uploads_created_at_index', ['created_at'], false],
  ['image_api_pending_uploads', 'image_api_pending_uploads_name_index', ['name'], false],
  ['image_api_renditions', 'image_api_renditions_key_index', ['key'], true],
  ['image_api_renditions', 'image_api_renditions_image_name_index', ['image_name'], false],
  ['image_api_renditions', 'image_api_renditions_last_used_at_index', ['last_used_at'], false],
  ['image_api_purges', 'image_api_purges_due_at_index', ['due_at'], false],
  ['image_api_purges', 'image_api_purges_created_at_index', ['created_at'], false],
  ['image_api_reports', 'image_api_reports_image_created_index', ['image_id_encoded', 'created_at'], false],
  ['image_api_reports', 'image_api_reports_image_address_index', ['image_id_encoded', 'address_hash'], true],
  ['image_api_blocks', 'image_api_blocks_kind_hash_index', ['kind', 'hash'], true],
  ...Array.from({ length: 16 }, (_, i): [string, string, string[], boolean] => ['image_api_blocks', `image_api_blocks_b_${i}_index`, [`b_${i}`], false]),
];

/** The indexes of a table: name → { columns, unique }. */
async function indexesOf(table: string, db: Knex = knex(), dialect: TestDb = client()): Promise<Record<string, { columns: string[]; unique: boolean }>> {
  const found: Record<string, { columns: string[]; unique: boolean }> = {};
  if (dialect === 'sqlite') {
    for (const index of await db.raw(`PRAGMA index_list(??)`, [table])) {
      const columns = (await db.raw(`PRAGMA index_info(??)`, [index.name])).map((c: { name: string }) => c.name);
      found[index.name] = { columns, unique: index.unique === 1 };
    }
  } else if (dialect === 'postgres') {
    const { rows } = await db.raw(
      `select i.relname as name, ix.indisunique as unique, array_agg(a.attname::text order by k.n) as columns
       from pg_index ix join pg_class t on t.oid = ix.indrelid join pg_class i on i.oid = ix.indexrelid
       cross join lateral unnest(ix.indkey) with ordinality as k(attnum, n)
       join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
       where t.relname = ? group by i.relname, ix.indisunique`,
      [table]
    );
    for (const row of rows) found[row.name] = { columns: row.columns, unique: row.unique };
  } else {
    const [rows] = await db.raw('show index from ??', [table]);
    for (const row of rows) {
      // Strapi's connection returns big numbers as text.
      found[row.Key_name] ??= { columns: [], unique: Number(row.Non_unique) === 0 };
      found[row.Key_name].columns[row.Seq_in_index - 1] = row.Column_name;
    }
  }
  return found;
}

test.each(PLUGIN_INDEXES)('%s has %s', async (table, name, columns, unique) => {
  const indexes = await indexesOf(table);
  expect(indexes[name]).toEqual({ columns, unique });
});

test('a database made before the indexes existed gets them at its next boot', async () => {
  const db = await createScratchDb();
  const env = { ...db.env, IMAGE_API_RATE_LIMIT: 'off', LOG_LEVEL: 'error' };
  const direct = inspect(db);
  try {
    await (await startChildApp(env)).stop();
    // As an older version of the plugin left it: no such indexes, and a stored schema without them.
    for (const [table, name, , unique] of PLUGIN_INDEXES) {
      // A unique one is a constraint on PostgreSQL.
      await direct.schema.alterTable(table, (t) => (unique ? t.dropUnique([], name) : t.dropIndex([], name)));
    }
    await direct('strapi_database_schema').del();
    for (const [table, name] of PLUGIN_INDEXES) expect((await indexesOf(table, direct, db.client))[name]).toBeUndefined();

    await (await startChildApp(env)).stop();
    for (const [table, name, columns, unique] of PLUGIN_INDEXES) {
      expect((await indexesOf(table, direct, db.client))[name]).toEqual({ columns, unique });
    }
  } finally {
    await direct.destroy();
    await db.drop();
  }
}, 120_000);

/** Whether the database plans `sql` with an index rather than a scan of the table. */
async function usesIndex(sql: string, bindings: unknown[]): Promise<string> {
  if (client() === 'sqlite') {
    const plan = await knex().raw(`EXPLAIN QUERY PLAN ${sql}`, bindings);
    return plan.map((step: { detail: string }) => step.detail).join('; ');
  }
  if (client() === 'postgres') {
    // An almost empty table is cheaper to scan: forbid that, so the plan shows whether an index can serve.
    return knex().transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      const { rows } = await trx.raw(`EXPLAIN ${sql}`, bindings);
      return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('; ');
    });
  }
  const [rows] = await knex().raw(`EXPLAIN ${sql}`, bindings);
  // A table this small may be read whole: the index must at least be one the plan could use.
  return rows
    .map((row: { key: string | null; possible_keys: string | null; Extra: string | null }) => `key=${row.key} possible=${row.possible_keys} ${row.Extra ?? ''}`)
    .join('; ');
}

// MariaDB plans a lookup by a unique key by reading that key at once: when nothing matches, it says so
// ("Impossible WHERE noticed after reading const tables") instead of naming the key.
const INDEXED = /USING (COVERING )?INDEX|Index (Only )?Scan|Bitmap Index Scan|key=image_api_|possible=\S*image_api_|after reading const tables/;

test.each([
  ['the viewer and the delete link', 'select id from image_api_images where id_encoded = ?', ['AbCdEfGhIj']],
  ['the Media Library delete hook', 'select id from image_api_images where name = ?', ['cat-AbCdEfGhIj']],
  ['the expiry sweep', 'select id from image_api_images where expires_at <= ? order by expires_at limit 200', [new Date()]],
  ['a deletion closing its journal rows', 'delete from image_api_pending_uploads where name in (?)', ['cat-AbCdEfGhIj']],
  ['a key', 'select id from image_api_keys where key_hash = ?', ['0'.repeat(64)]],
  ['the usage page: most viewed', 'select id from image_api_images order by views desc limit 8', []],
  ['the usage page: latest uploads', 'select id from image_api_images order by created_at desc limit 24', []],
  ['the usage page: days of every key', 'select day, sum(uploads) from image_api_usage_days where day >= ? group by day', ['2026-10-26']],
  // `key` is a reserved word in MySQL, but not after a qualifier.
  ['a kept transformation', 'select r.id from image_api_renditions r where r.key = ?', ['0'.repeat(64)]],
  ["a deletion taking its image's kept transformations", 'select id from image_api_renditions where image_name in (?)', ['cat-AbCdEfGhIj']],
  ['the byte budget: least recently used first', 'select id from image_api_renditions order by last_used_at limit 100', []],
  ["a duplicate of the key's upload", 'select id from image_api_images where source_digest = ?', ['0'.repeat(64)]],
  ["a deletion taking its image's reports", 'delete from image_api_reports where image_id_encoded in (?)', ['AbCdEfGhIj']],
  ["an image's reports, latest first", 'select id from image_api_reports where image_id_encoded = ? order by created_at desc limit 50', ['AbCdEfGhIj']],
  ["the usage page: one key's days", 'select day, sum(uploads) from image_api_usage_days where key_id = ? and day >= ? group by day', [1, '2026-10-26']],
  ['the blocklist: an exact hash', "select id from image_api_blocks where (kind = 'sha256' and hash in (?)) or (kind = 'md5' and hash in (?))", ['0'.repeat(64), '0'.repeat(32)]],
  ['the review queue, oldest first', 'select id from image_api_images where review_since is not null order by review_since limit 20', []],
  ['the blocklist: which kinds it holds', "select id from image_api_blocks where kind = 'pdq' limit 1", []],
])('%s: planned with an index', async (_label, sql, bindings) => {
  expect(await usesIndex(sql, bindings)).toMatch(INDEXED);
});

// The blocklist's perceptual lookup (moderation/blocklist.ts): 16 IN lists OR-ed, each read from its
// word's index (SQLite: MULTI-INDEX OR; PostgreSQL: a BitmapOr of 16 index scans; MariaDB: an
// index_merge sort_union once the table is large enough to be worth it, as tools/bench/blocklist.js shows).
test.each([31, 47])('the blocklist: a perceptual lookup within %i bits reads the 16 word indexes', async (distance) => {
  const { sql, bindings } = candidatesQuery(knex(), 'image_api_blocks', '0123456789abcdef'.repeat(4), distance).select('id', 'hash').toSQL();
  const plan = await usesIndex(sql, [...bindings]);
  for (let i = 0; i < 16; i++) expect(plan).toContain(`image_api_blocks_b_${i}_index`);
  expect(plan).not.toMatch(/SCAN image_api_blocks(?! USING)|Seq Scan/);
});
