/** Per-key rate limits in each window, per-key overrides, failed authentication per address, and Redis. */
import crypto from 'crypto';
import request from 'supertest';
import Redis from 'ioredis';
import { startApp, type TestApp } from '../../helpers/app';
import { startChildApp } from '../../helpers/child-app';
import { png } from '../../helpers/fixtures';

let image: Buffer;
beforeAll(async () => {
  image = await png(16, 16);
});

const upload = (http: any, key: string) => http.post('/api/1/upload').set('X-API-Key', key).attach('source', image, 'a.png');

function expect429(res: any, limit: number, unit: string, minRetry: number, maxRetry: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    status_code: 429,
    error: { message: `Rate limit exceeded: ${limit} uploads per ${unit}`, code: 429 },
    status_txt: 'Too Many Requests',
  });
  const retry = Number(res.headers['retry-after']);
  expect(retry).toBeGreaterThanOrEqual(minRetry);
  expect(retry).toBeLessThanOrEqual(maxRetry);
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  const reset = Number(res.headers['x-ratelimit-reset']);
  expect(reset - Date.now() / 1000).toBeGreaterThan(minRetry - 2);
  expect(reset - Date.now() / 1000).toBeLessThanOrEqual(maxRetry + 1);
}

describe('in memory', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.stop();
  });
  const setLimit = (spec: string) => app.strapi.config.set('plugin::image-api.rateLimit', spec);

  test.each([
    ['minute', '2/minute,100/hour,1000/day', 2, 50, 60],
    ['hour', '100/minute,2/hour,1000/day', 2, 3500, 3600],
    ['day', '100/minute,100/hour,2/day', 2, 86_300, 86_400],
  ])('the %s window', async (unit, spec, limit, minRetry, maxRetry) => {
    setLimit(spec);
    const key = await app.createKey();
    const first = await upload(app.http, key);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(first.headers['x-ratelimit-remaining']).toBe(String(limit - 1));
    expect((await upload(app.http, key)).status).toBe(200);
    expect429(await upload(app.http, key), limit, unit, minRetry, maxRetry);
    // Another key has its own budget.
    expect((await upload(app.http, await app.createKey())).status).toBe(200);
  });

  test('only stored uploads use the budget: refused and failed requests give their charge back', async () => {
    setLimit('2/minute');
    const key = await app.createKey();
    const refusals = [
      app.upload(key, Buffer.from('<html></html>')), // 310
      app.http.post('/api/1/upload').set('X-API-Key', key).type('form').send({ source: 'not base64 at all!' }), // 120
      app.http.post('/api/1/upload').set('X-API-Key', key).type('form').send({}), // 130
      app.http.post('/api/1/upload').set('X-API-Key', key).type('form').send({ source: 'http://127.0.0.1:1/x.png' }), // 320
    ];
    for (const refusal of refusals) expect((await refusal).status).toBe(400);
    expect((await upload(app.http, key)).status).toBe(200);
    expect((await upload(app.http, key)).status).toBe(200);
    expect429(await upload(app.http, key), 2, 'minute', 50, 60);
  });

  test('429 answers in txt format as plain text, with the headers', async () => {
    setLimit('1/minute');
    const key = await app.createKey();
    await upload(app.http, key).expect(200);
    const res = await app.http.post('/api/1/upload?format=txt').set('X-API-Key', key).attach('source', image, 'a.png');
    expect(res.status).toBe(429);
    expect(res.text).toBe('Rate limit exceeded: 1 uploads per minute');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('a key\'s own limit overrides the default, both ways', async () => {
    setLimit('1/minute');
    const { key: generous } = await app.strapi.plugin('image-api').service('api-keys').create({ name: 'generous', rateLimit: '3/minute' });
    for (let i = 0; i < 3; i++) expect((await upload(app.http, generous)).status).toBe(200);
    expect429(await upload(app.http, generous), 3, 'minute', 50, 60);

    const { key: unlimited } = await app.strapi.plugin('image-api').service('api-keys').create({ name: 'unlimited', rateLimit: 'off' });
    for (let i = 0; i < 3; i++) {
      const res = await upload(app.http, unlimited);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  test('"off" turns the default limit off', async () => {
    setLimit('off');
    const key = await app.createKey();
    for (let i = 0; i < 3; i++) expect((await upload(app.http, key)).headers['x-ratelimit-limit']).toBeUndefined();
  });

  test('failed authentication is limited per client address; a valid key is then refused too', async () => {
    setLimit('off');
    app.strapi.config.set('plugin::image-api.failedAuthLimit', '3/minute');
    try {
      const key = await app.createKey();
      for (let i = 0; i < 3; i++) expect((await upload(app.http, `img_guess${i}`)).status).toBe(401);
      const blocked = await upload(app.http, key);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toEqual({ message: 'Too many failed authentication attempts: at most 3 per minute', code: 429 });
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    } finally {
      app.strapi.config.set('plugin::image-api.failedAuthLimit', 'off');
    }
  });

  test('behind a trusted proxy, guesses lock out the client X-Forwarded-For names, not every client of the proxy', async () => {
    setLimit('off');
    app.strapi.config.set('plugin::image-api.failedAuthLimit', '3/minute');
    app.strapi.config.set('plugin::image-api.trustedProxies', ['loopback']);
    const from = (forwardedFor: string, key: string) =>
      app.http.post('/api/1/upload').set('X-API-Key', key).set('X-Forwarded-For', forwardedFor).attach('source', image, 'a.png');
    try {
      const key = await app.createKey();
      // The guesser forges an address in front: the proxy appends the real one, which is counted.
      for (let i = 0; i < 3; i++) expect((await from(`198.51.100.${i + 50}, 198.51.100.7`, `img_guess${i}`)).status).toBe(401);
      expect((await from('198.51.100.7', key)).status).toBe(429);
      // Another client behind the same proxy is not locked out.
      expect((await from('198.51.100.8', key)).status).toBe(200);
    } finally {
      app.strapi.config.set('plugin::image-api.failedAuthLimit', 'off');
      app.strapi.config.set('plugin::image-api.trustedProxies', []);
    }
  });

  test('without trusted proxies, X-Forwarded-For is ignored: a client cannot dodge the lockout with it', async () => {
    setLimit('off');
    // 4/minute: counters of its own (the loopback address already used up 3/minute above).
    app.strapi.config.set('plugin::image-api.failedAuthLimit', '4/minute');
    try {
      const key = await app.createKey();
      for (let i = 0; i < 4; i++) {
        const res = await app.http.post('/api/1/upload').set('X-API-Key', `img_dodge${i}`).set('X-Forwarded-For', `198.51.100.${i + 90}`).attach('source', image, 'a.png');
        expect(res.status).toBe(401);
      }
      const blocked = await app.http.post('/api/1/upload').set('X-API-Key', key).set('X-Forwarded-For', '198.51.100.99').attach('source', image, 'a.png');
      expect(blocked.status).toBe(429);
    } finally {
      app.strapi.config.set('plugin::image-api.failedAuthLimit', 'off');
    }
  });

  test('a missing key is not counted as a guess', async () => {
    app.strapi.config.set('plugin::image-api.failedAuthLimit', '1/minute');
    try {
      for (let i = 0; i < 3; i++) expect((await app.http.post('/api/1/upload').type('form').send({})).status).toBe(401);
      expect((await upload(app.http, await app.createKey())).status).toBe(200);
    } finally {
      app.strapi.config.set('plugin::image-api.failedAuthLimit', 'off');
    }
  });
});

describe('in Redis, shared by two instances', () => {
  const prefix = `image-api-test-${crypto.randomBytes(4).toString('hex')}`;
  const env = { REDIS_URL: 'redis://127.0.0.1:6379', IMAGE_API_REDIS_PREFIX: prefix, IMAGE_API_RATE_LIMIT: '3/minute' };
  let app: TestApp;
  let other: Awaited<ReturnType<typeof startChildApp>>;

  beforeAll(async () => {
    app = await startApp(env);
    // The second instance: another process on the same database and the same Redis.
    other = await startChildApp({ ...process.env, ...env });
  }, 90_000);
  afterAll(async () => {
    await other?.stop();
    await app?.stop();
    const redis = new Redis(env.REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  test('uploads through either instance draw on one budget', async () => {
    const key = await app.createKey();
    const second = request(other.url);
    expect((await upload(app.http, key)).status).toBe(200);
    expect((await upload(second, key)).status).toBe(200);
    const third = await upload(app.http, key);
    expect(third.status).toBe(200);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    expect429(await upload(second, key), 3, 'minute', 50, 60);
    expect429(await upload(app.http, key), 3, 'minute', 50, 60);
  });

  test('the counters are in Redis', async () => {
    const redis = new Redis(env.REDIS_URL);
    try {
      expect((await redis.keys(`${prefix}:key:3/minute*`)).length).toBeGreaterThan(0);
    } finally {
      await redis.quit();
    }
  });

  test('a revocation on one instance applies on another that had the key cached, within 5 s', async () => {
    // Its own limit is off: this test polls, and the other instance has its own default limit.
    const { key } = await app.strapi.plugin('image-api').service('api-keys').create({ name: 'cached elsewhere', rateLimit: 'off' });
    const second = request(other.url);
    expect((await upload(second, key)).status).toBe(200);
    await app.strapi.plugin('image-api').service('api-keys').revoke('cached elsewhere');
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 6000) {
      status = (await upload(second, key)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(403);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
  });

  test('a revocation on one instance applies on the other at once', async () => {
    const key = await app.createKey('revoked across instances');
    await app.strapi.plugin('image-api').service('api-keys').revoke('revoked across instances');
    expect((await upload(request(other.url), key)).status).toBe(403);
  });
});
