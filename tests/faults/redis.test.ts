/**
 * Redis away: unreachable at boot, or hung (SIGSTOP) under load. The app boots, uploads never wait on
 * Redis longer than its command timeout, rate limits count in memory meanwhile (each instance from
 * zero), /_health answers 200 naming Redis as degraded (a balancer keeps the instance), and Redis is
 * used again as soon as it answers.
 */
import { spawnSync } from 'child_process';
import path from 'path';
import Redis from 'ioredis';
import { jpeg } from '../helpers/fixtures';
import { startFaultApp, type FaultApp } from './helpers/fault-app';
import { sleep, tally, uploadFile } from './helpers/load';
import { freePort } from '../../tools/support/servers/ports';
import { startPostgres } from '../../tools/support/servers/postgres';
import { startRedis } from '../../tools/support/servers/redis';

const KEY = 'img_faults_redis_0123456789abcdef01';
let pg: Awaited<ReturnType<typeof startPostgres>>;
let redis: Awaited<ReturnType<typeof startRedis>> | null = null;
let app: FaultApp;
let image: Buffer;
let redisPort: number;

beforeAll(async () => {
  pg = await startPostgres();
  image = await jpeg(320, 240);
  // Nothing listens on Redis's port yet: the app must boot all the same.
  redisPort = await freePort();
  app = await startFaultApp({
    ...pg.env,
    IMAGE_API_BOOTSTRAP_KEY: KEY,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    IMAGE_API_REDIS_PREFIX: 'faults',
    IMAGE_API_RATE_LIMIT: '1000/minute',
  });
}, 120_000);
afterAll(async () => {
  await app?.destroy();
  await redis?.destroy();
  await pg?.destroy();
});

const upload = (key = KEY) => uploadFile(app.url, key, image, { timeoutMs: 30_000 });
const health = async () => {
  const res = await fetch(`${app.url}/_health`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
};

test('Redis unreachable at boot: the app boots and warns, uploads count in memory, and Redis is used once it answers', async () => {
  expect(app.output()).toMatch(/Redis is not answering \(.*\); rate limits count in this instance's memory until it does/);
  const answers = await Promise.all(Array.from({ length: 4 }, () => upload()));
  expect(tally(answers)).toEqual({ 200: 4 });
  expect(answers[0].headers['x-ratelimit-limit']).toBe('1000');
  // Degraded, not out: a balancer keeps sending uploads, which work (docs/operations.md).
  expect(await health()).toEqual({ status: 200, body: { status: 'degraded', degraded: ['Redis'], checks: { database: 'up', redis: 'down' } } });

  redis = await startRedis({ port: redisPort });
  const startedAt = Date.now();
  while ((await health()).status !== 204) {
    if (Date.now() - startedAt > 15_000) throw new Error('Redis not used again within 15 s');
    await sleep(250);
  }
  console.log(`Redis started after the app: used ${Date.now() - startedAt} ms later`);
  expect((await upload()).status).toBe(200);
  const client = new Redis(redis.url);
  try {
    expect((await client.keys('faults:key:1000/minute*')).length).toBe(1);
  } finally {
    client.disconnect();
  }
  await sleep(5500);
  expect(app.output()).toMatch(/Redis answers again; rate limits are shared again/);
}, 60_000);

test('Redis hung: uploads go on without waiting for it, /_health says it is degraded (200); used again once it answers', async () => {
  expect(redis).not.toBeNull();
  redis!.hang();
  let answers;
  let unhealthy;
  try {
    [answers, unhealthy] = await Promise.all([Promise.all(Array.from({ length: 8 }, () => upload())), health()]);
  } finally {
    redis!.resume();
  }
  const slowest = Math.max(...answers.map((a) => a.ms));
  console.log(`hung Redis: answers ${JSON.stringify(tally(answers))}, slowest ${slowest} ms`);
  expect(tally(answers)).toEqual({ 200: 8 });
  // The command timeout is 250 ms: an upload never waits for a hung Redis.
  expect(slowest).toBeLessThan(5000);
  expect(unhealthy.status).toBe(200);
  expect(unhealthy.body).toEqual({ status: 'degraded', degraded: ['Redis'], checks: { database: 'up', redis: 'down' } });

  const resumedAt = Date.now();
  while ((await health()).status !== 204) {
    if (Date.now() - resumedAt > 10_000) throw new Error('Redis not healthy again within 10 s');
    await sleep(250);
  }
  expect((await upload()).status).toBe(200);
}, 60_000);

test('while Redis hangs, a key\'s limit still holds, in this instance\'s memory', async () => {
  // A key of its own, 3 uploads a minute, issued with the CLI against the app's database.
  const cli = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'apikey.js'), 'keys', 'create', '--name', 'limited', '--rate-limit', '3/minute'], {
    env: { ...process.env, ...pg.env },
    encoding: 'utf8',
  });
  expect(cli.status).toBe(0);
  const limited = cli.stdout.trim().split('\n').pop()!;
  redis!.hang();
  let answers;
  try {
    answers = [];
    for (let i = 0; i < 5; i++) answers.push(await upload(limited));
  } finally {
    redis!.resume();
  }
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
  expect(answers[3].body.error).toEqual({ message: 'Rate limit exceeded: 3 uploads per minute', code: 429 });
}, 60_000);
