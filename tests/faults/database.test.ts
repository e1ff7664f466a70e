/**
 * The database hangs (SIGSTOP) or stops under a load of uploads: clients get 503 with Retry-After
 * within the statement timeout, never a hang nor a 500; /_health says the database is down; uploads
 * work again once it is back; the periodic debris sweep cleans what the outage left (journal rows,
 * files of uploads whose outcome was unknown) without a restart.
 */
import type { Knex } from 'knex';
import { jpeg } from '../helpers/fixtures';
import { startFaultApp, type FaultApp } from './helpers/fault-app';
import { CLEAN, leftovers, openDb, sleep, tally, uploadFile, type Answer } from './helpers/load';
import { startPostgres } from '../../tools/support/servers/postgres';

const KEY = 'img_faults_database_0123456789abcdef';
let pg: Awaited<ReturnType<typeof startPostgres>>;
let app: FaultApp;
let db: Knex;
let image: Buffer;

beforeAll(async () => {
  pg = await startPostgres();
  app = await startFaultApp({
    ...pg.env,
    IMAGE_API_BOOTSTRAP_KEY: KEY,
    DATABASE_QUERY_TIMEOUT_MS: '2000',
    DATABASE_CONNECT_TIMEOUT_MS: '2000',
    DATABASE_CONNECTION_TIMEOUT: '4000',
    IMAGE_API_SWEEP_AFTER_MS: '3000',
    IMAGE_API_DEBRIS_SWEEP_SECONDS: '2',
  });
  db = openDb(pg.env);
  image = await jpeg(640, 480);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await app?.destroy();
  await pg?.destroy();
});

const upload = (timeoutMs = 60_000) => uploadFile(app.url, KEY, image, { timeoutMs });
const health = async () => {
  const res = await fetch(`${app.url}/_health`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: res.status === 204 ? null : await res.json() };
};

function expectOutageAnswer(answer: Answer) {
  expect(answer.status).toBe(503);
  expect(answer.headers['retry-after']).toBe('5');
  expect(answer.body).toEqual({
    status_code: 503,
    error: { message: 'Service unavailable: the database is not answering', code: 503 },
    status_txt: 'Service Unavailable',
  });
}

/** Polls until `check` holds; returns how long it took. */
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(200);
  }
  return Date.now() - started;
}

/** Waits for the debris sweep to leave the store clean; returns the leftovers seen last. */
async function settled() {
  let last = await leftovers(db, app.uploadsDir, app.tmpDir);
  await until(async () => {
    last = await leftovers(db, app.uploadsDir, app.tmpDir);
    return last.journalRows === 0 && last.filesWithoutRows.length === 0 && last.rowsWithoutFiles.length === 0;
  }, 30_000).catch(() => undefined);
  return last;
}

test('PostgreSQL hung: 503 with Retry-After within seconds, /_health 503; back to 200 once it answers; nothing left behind', async () => {
  expect((await upload()).status).toBe(200);
  const before = await leftovers(db, app.uploadsDir, app.tmpDir);

  pg.hang();
  let answers: Answer[];
  let unhealthy: Awaited<ReturnType<typeof health>>;
  try {
    [answers, unhealthy] = await Promise.all([Promise.all(Array.from({ length: 8 }, () => upload())), health()]);
  } finally {
    pg.resume();
  }
  console.log(`hung PostgreSQL: answers ${JSON.stringify(tally(answers))}, slowest ${Math.max(...answers.map((a) => a.ms))} ms`);
  for (const answer of answers) expectOutageAnswer(answer);
  // Statement timeout 2 s (+1 s client side), a connection timeout of 2 s, a pool wait of 4 s: never the minutes of a hang.
  expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(15_000);
  expect(unhealthy.status).toBe(503);
  expect(unhealthy.retryAfter).toBe('5');
  expect(unhealthy.body).toEqual({
    status_code: 503,
    error: { message: 'Service unavailable: the database is not answering', code: 503 },
    status_txt: 'Service Unavailable',
    checks: { database: 'down' },
  });

  const recovery = await until(async () => (await upload(10_000)).status === 200, 30_000);
  console.log(`hung PostgreSQL: uploads answer 200 again ${recovery} ms after it resumed`);
  expect((await health()).status).toBe(204);

  const after = await settled();
  expect(after).toMatchObject(CLEAN);
  // The upload of the recovery check, and any whose commit the hung server applied when it woke
  // (complete: its files are there, as checked above).
  expect(after.images).toBeGreaterThanOrEqual(before.images + 1);
}, 120_000);

test('PostgreSQL stopped for 10 s under a load of clients that honour Retry-After: only 200s and 503s; the journal is cleaned without a restart', async () => {
  const before = await leftovers(db, app.uploadsDir, app.tmpDir);
  const answers: Answer[] = [];
  let running = true;
  const client = async () => {
    while (running) {
      const answer = await upload(30_000);
      answers.push(answer);
      if (answer.status === 503) await sleep(Number(answer.headers['retry-after']) * 1000);
      else if (answer.status !== 200) await sleep(1000);
    }
  };
  const clients = Array.from({ length: 4 }, client);
  await sleep(1500);
  const stoppedAt = Date.now();
  await pg.stop();
  await sleep(10_000);
  await pg.start();
  const restartedAt = Date.now();
  const recovery = await until(async () => (await upload(10_000)).status === 200, 30_000);
  await sleep(2000);
  running = false;
  await Promise.all(clients);

  const counts = tally(answers);
  const during = answers.filter((a) => a.status === 503).length;
  console.log(
    `stopped PostgreSQL: answers ${JSON.stringify(counts)} from 4 clients over ${Math.round((Date.now() - stoppedAt) / 1000)} s ` +
      `(${(during / 10).toFixed(1)} refusals/s during the outage); uploads 200 again ${recovery} ms after the restart`
  );
  expect(Object.keys(counts).sort()).toEqual(['200', '503']);
  for (const answer of answers.filter((a) => a.status === 503)) expectOutageAnswer(answer);
  // Clients that wait 5 s per refusal: a handful of refusals each, not hundreds per second.
  expect(during).toBeLessThanOrEqual(4 * 4);
  expect(restartedAt - stoppedAt).toBeGreaterThanOrEqual(10_000);

  const after = await settled();
  expect(after).toMatchObject(CLEAN);
  expect(after.images).toBeGreaterThanOrEqual(before.images + counts[200]);
  // An outage is not a bug: no request was logged as failed (with its stack trace).
  expect(app.output()).not.toMatch(/image-api: (GET|POST) \S+ failed:/);
}, 180_000);
