/**
 * The process itself: SIGTERM during a burst (graceful: in-flight uploads finish, nothing orphaned),
 * SIGKILL during a burst retried with Idempotency-Key (no duplicate, no orphan after the boot sweep),
 * overload (64 and 256 concurrent 12 MP uploads: admission control keeps memory bounded and answers
 * 503 with Retry-After past it; memory returns near its idle level), and clients that trickle their
 * bodies (cut with 408 in the API's shape, nothing logged as an error).
 */
import net from 'net';
import type { Knex } from 'knex';
import { jpeg } from '../helpers/fixtures';
import { photo12mp } from './helpers/photo';
import { startFaultApp, type FaultApp } from './helpers/fault-app';
import { CLEAN, leftovers, openDb, rawAnswer, rssMb as processRssMb, sleep, tally, uploadFile, type Answer } from './helpers/load';
import { startPostgres } from '../../tools/support/servers/postgres';
import { request } from '../../tools/support/http/http-client';
import { signedPath, transformSecrets } from '../helpers/imgproxy';

const KEY = 'img_faults_process_0123456789abcdef0';
const { key: TRANSFORM_KEY, salt: TRANSFORM_SALT } = transformSecrets();
/** A transformation URL with its imgproxy signature (signed results are the ones kept). */
const signedUrl = (rest: string) => `${app.url}${signedPath(TRANSFORM_KEY, TRANSFORM_SALT, rest)}`;
let pg: Awaited<ReturnType<typeof startPostgres>>;
let app: FaultApp;
let db: Knex;
let photo: Buffer;
let small: Buffer;

beforeAll(async () => {
  pg = await startPostgres();
  [photo, small] = await Promise.all([photo12mp(), jpeg(640, 480)]);
  app = await startFaultApp({ ...pg.env, IMAGE_API_BOOTSTRAP_KEY: KEY, IMAGE_API_SWEEP_AFTER_MS: '1000', IMAGE_API_TRANSFORM_KEY: TRANSFORM_KEY, IMAGE_API_TRANSFORM_SALT: TRANSFORM_SALT });
  db = openDb(pg.env);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await app?.destroy();
  await pg?.destroy();
});

const upload = (bytes = photo, headers: Record<string, string> = {}) => uploadFile(app.url, KEY, bytes, { headers, timeoutMs: 120_000 });
const clean = () => leftovers(db, app.uploadsDir, app.tmpDir);

/** Resident memory of the app process, MB. */
const rssMb = () => processRssMb(app.pid());

test('SIGTERM during a burst of uploads: every client gets an answer, every acknowledged upload is complete, nothing is orphaned', async () => {
  const before = await clean();
  const burst = Array.from({ length: 8 }, () => upload());
  await sleep(400);
  const termAt = Date.now();
  const exitCode = app.stop();
  const answers = await Promise.all(burst);
  const code = await exitCode;
  console.log(`SIGTERM: answers ${JSON.stringify(tally(answers))}; exited ${Date.now() - termAt} ms after the signal with code ${code}`);
  expect(code).toBe(0);
  // None without an answer: each finished (200) or was refused while draining (503).
  expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
  expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
  const after = await clean();
  expect(after).toMatchObject(CLEAN);
  expect(after.images).toBe(before.images + answers.filter((a) => a.status === 200).length);

  await app.restart();
  expect((await upload(small)).status).toBe(200);
}, 180_000);

test('SIGKILL during a burst, each upload retried with its Idempotency-Key: one image per key, no orphan after the boot sweep', async () => {
  const before = await clean();
  const keys = Array.from({ length: 12 }, (_, i) => `burst-${Date.now()}-${i}`);
  const burst = keys.map((key) => upload(photo, { 'Idempotency-Key': key }));
  // Killed as soon as the first upload is acknowledged: the others are in flight.
  await Promise.race(burst);
  await app.kill();
  const first = await Promise.all(burst);
  console.log(`SIGKILL: first answers ${JSON.stringify(tally(first))}`);

  // The boot sweep removes what the crash left once it is older than IMAGE_API_SWEEP_AFTER_MS (1 s).
  await sleep(1200);
  await app.restart();
  const retried: Answer[] = [];
  for (const key of keys) retried.push(await upload(photo, { 'Idempotency-Key': key }));
  expect(retried.map((a) => a.status)).toEqual(Array(12).fill(200));
  // An upload acknowledged before the crash is replayed, not stored again.
  first.forEach((answer, i) => {
    if (answer.status === 200) {
      expect(retried[i].headers['idempotent-replayed']).toBe('true');
      expect(retried[i].body.image.id_encoded).toBe(answer.body.image.id_encoded);
    }
  });
  const after = await clean();
  expect(after).toMatchObject(CLEAN);
  expect(after.images).toBe(before.images + 12);
  expect(Number((await db('image_api_idempotent_uploads').whereIn('idempotency_key', keys).count({ n: '*' }))[0].n)).toBe(12);
  expect(first.filter((a) => a.status === 200).length).toBeGreaterThan(0);
}, 180_000);

test('SIGKILL during a burst of transformations (renders, and results being kept): after the boot sweep, no kept file without its row, no row without its file', async () => {
  const source = await upload();
  expect(source.status).toBe(200);
  const url = source.body.image.url as string;
  const renders = Array.from({ length: 16 }, (_, i) => request(signedUrl(`/rs:fit:${600 + i}:0/plain/${url}@webp`), { timeoutMs: 60_000 }));
  // Killed as soon as the first result is answered: others render, or are being kept.
  await Promise.race(renders);
  await app.kill();
  const answers = await Promise.all(renders);
  console.log(`SIGKILL mid-render: answers ${JSON.stringify(tally(answers))}`);
  expect(answers.some((answer) => answer.status === 200)).toBe(true);
  await sleep(1200);
  await app.restart();
  expect(await clean()).toMatchObject(CLEAN);
  // What was kept is served again, and what was not is rendered again.
  const again = await Promise.all(Array.from({ length: 16 }, (_, i) => request(signedUrl(`/rs:fit:${600 + i}:0/plain/${url}@webp`), { timeoutMs: 60_000 })));
  expect(Number((await db('image_api_renditions').count({ n: '*' }))[0].n)).toBeGreaterThan(0);
  expect(again.map((answer) => answer.status)).toEqual(Array(16).fill(200));
  await sleep(1500);
  expect(await clean()).toMatchObject(CLEAN);
}, 180_000);

test.each([64, 256])('%i concurrent 12 MP uploads: 200 or 503 with Retry-After at once; RSS stays bounded', async (clients) => {
  // Idle: after a warm-up upload, settled.
  expect((await upload()).status).toBe(200);
  await sleep(2000);
  const idle = rssMb();
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 50);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: clients }, () => upload()));
  const burstMs = Date.now() - started;
  clearInterval(sampler);
  // Memory comes back, in part, once V8 collects the burst's buffers (its memory reducer runs when the
  // process goes idle): polled for up to 20 s and printed; the bounds below hold whenever it is read.
  const idleAgain = Date.now();
  let after = rssMb();
  while (after >= idle + 60 && Date.now() - idleAgain < 20_000) {
    await sleep(500);
    after = rssMb();
  }
  const settleMs = Date.now() - idleAgain;

  const failed = answers.filter((a) => a.status === 0).map((a) => a.error);
  if (failed.length) console.log(`no answer: ${JSON.stringify(tally(failed.map((error) => ({ status: error } as unknown as Answer))))}`);
  const accepted = answers.filter((a) => a.status === 200).map((a) => a.ms).sort((a, b) => a - b);
  const refused = answers.filter((a) => a.status === 503);
  const p50 = accepted[Math.floor(accepted.length / 2)];
  console.log(
    `${clients} x 12 MP: answers ${JSON.stringify(tally(answers))} in ${burstMs} ms; p50 of the 200s ${p50} ms; ` +
      `slowest 503 ${Math.max(0, ...refused.map((a) => a.ms))} ms; RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, back to ${after.toFixed(0)} MB ${(settleMs / 1000).toFixed(1)} s after`
  );
  expect(Object.keys(tally(answers)).every((status) => status === '200' || status === '503')).toBe(true);
  expect(accepted.length).toBeGreaterThanOrEqual(16);
  for (const answer of refused) {
    expect(answer.headers['retry-after']).toBe('2');
    expect(answer.body.error.code).toBe(503);
  }
  // Bounded by the budget one instance is sized for (docs/operations.md: about 600 MB), during the
  // burst and after it. Not "back to idle": freed memory stays with the allocator, and how much comes
  // back varies from run to run (measured after 64 clients: 297 to 388 MB from 238 MB idle; after
  // 256, whose refused bodies are read to their end so every client gets its 503: 394 to 413 MB,
  // about the peak). The next burst reuses it: 256 clients after 64 peaked 21 MB above that level.
  expect(peak).toBeLessThan(600);
  expect(after).toBeLessThan(600);
  expect(await clean()).toMatchObject(CLEAN);
}, 300_000);

test('200 clients trickling their bodies at 1 byte/s: cut with 408 (or refused with 503) in the API\'s shape within seconds, nothing logged as an error; uploads go on after', async () => {
  const logBefore = app.output().length;
  const started = Date.now();
  const clients = Array.from({ length: 200 }, () =>
    new Promise<{ status: number; body: any; ms: number }>((resolve) => {
      const socket = net.connect(app.port, '127.0.0.1');
      let received = '';
      const trickle = setInterval(() => socket.write('A'), 1000);
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(trickle);
        resolve({ ...rawAnswer(received), ms: Date.now() - started });
      });
      socket.write(`POST /api/1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${KEY}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\nsource=`);
      // A 503 answers at once and the connection stays open: the client closes once it has it.
      socket.on('data', () => {
        if (/\r\n\r\n[\s\S]*\}$/.test(received)) socket.end();
      });
    })
  );
  const answers = await Promise.all(clients);
  const slowest = Math.max(...answers.map((a) => a.ms));
  console.log(`200 trickling clients: answers ${JSON.stringify(tally(answers as Answer[]))}, the last ${slowest} ms after they started`);
  expect(Object.keys(tally(answers as Answer[])).every((status) => status === '408' || status === '503')).toBe(true);
  for (const answer of answers.filter((a) => a.status === 408)) {
    expect(answer.body).toEqual({ status_code: 408, error: { message: 'Request timeout: the body stalled', code: 408 }, status_txt: 'Request Timeout' });
  }
  // Cut after the 10 s window (default), not Node's 300 s request timeout.
  expect(slowest).toBeLessThan(30_000);
  const log = app.output().slice(logBefore);
  expect(log).not.toMatch(/\berror\b/i);
  expect(log).not.toMatch(/\n\s+at /);
  expect((await upload(small)).status).toBe(200);
}, 120_000);
