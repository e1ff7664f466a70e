/**
 * The SQL statements one upload runs, counted and listed: every one runs on the event loop (SQLite)
 * or is a round trip (PostgreSQL, MariaDB), so their number is a cost of every upload
 * (docs/performance.md, "Statements"). A new statement on the upload path shows here first.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

/** The statements knex runs while `work` does, in order. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (query: { sql: string }) => seen.push(query.sql);
  const knex = app.strapi.db.connection;
  knex.on('query', listen);
  try {
    await work();
    // What the upload does after its answer (events, the usage tally) is its cost too.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    knex.off('query', listen);
  }
  return seen;
}

/** A statement as its verb and table: what the list below pins, whatever the columns. */
const shapeOf = (sql: string) => {
  // PostgreSQL's names carry their schema ("public"."files").
  const match = /^(insert into|update|delete from|select .* from) (?:[`"]?\w+[`"]?\.)?[`"]?(\w+)/i.exec(sql.trim());
  return match ? `${match[1].split(' ')[0].toLowerCase()} ${match[2]}` : sql.trim().replace(/;$/, '').toLowerCase();
};

test('an upload with a plain key runs these 13 statements, 10 of them in its transaction: a new one shows here', async () => {
  const key = await app.createKey();
  const photo = await jpeg(800, 600);
  // The first upload makes what later ones reuse (the folder, the key's cache).
  expect((await app.upload(key, photo)).status).toBe(200);
  const statements = await statementsOf(async () => expect((await app.upload(key, photo)).status).toBe(200));
  expect(statements.map(shapeOf)).toEqual([
    // The journal of the files about to be written (its own commit: a crash leaves it for the sweep).
    'insert image_api_pending_uploads',
    'begin',
    'insert files',
    'insert files_folder_lnk',
    'delete image_api_pending_uploads',
    // The key's quota and use, the image, its album and key, the Media Library's link, the day's tally.
    'update image_api_keys',
    'insert image_api_images',
    'insert image_api_images_album_lnk',
    'insert image_api_images_api_key_lnk',
    'insert files_related_mph',
    'insert image_api_usage_days',
    'commit',
    // Once the request has moved on: the Media Library's entry, for Strapi's media.create event.
    'select files',
  ]);
});
