import net from 'net';
import { startApp, type TestApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

test('GET /_health answers 204 when the database answers (and no Redis is configured)', async () => {
  const res = await app.http.get('/_health');
  expect(res.status).toBe(204);
  expect(res.text).toBe('');
});

test('the plugin and its content types are loaded', () => {
  expect(app.strapi.plugin('image-api')).toBeDefined();
  expect(app.strapi.contentType('plugin::image-api.image')).toBeDefined();
  expect(app.strapi.contentType('plugin::image-api.api-key')).toBeDefined();
});

test('the database is the one the run asked for', () => {
  expect(app.strapi.config.get('database.connection.client')).toBe(process.env.TEST_DB || 'sqlite');
  expect(app.db.client).toBe(process.env.TEST_DB || 'sqlite');
});

describe('a configured Redis that does not answer', () => {
  let degraded: TestApp;
  let port: number;
  beforeAll(async () => {
    // A loopback port nobody listens on: every connection is refused.
    port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as net.AddressInfo;
        server.close(() => resolve(free));
      });
    });
    await app.stop();
    app = undefined as unknown as TestApp;
    degraded = await startApp({ REDIS_URL: `redis://127.0.0.1:${port}`, IMAGE_API_RATE_LIMIT: '2/minute' });
  }, 90_000);
  afterAll(async () => {
    await degraded?.stop();
  });

  // Uploads work without Redis, so a balancer must not take the instance out (docs/operations.md; it
  // answered 503 before issue 23, item 11).
  test('the app boots; /_health answers 200 naming Redis as degraded', async () => {
    const res = await degraded.http.get('/_health');
    expect(res.status).toBe(200);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ status: 'degraded', degraded: ['Redis'], checks: { database: 'up', redis: 'down' } });
  });

  test('uploads go on, counted in this instance\'s memory', async () => {
    const key = await degraded.createKey();
    const image = await png(16, 16);
    const upload = () => degraded.upload(key, image);
    const started = Date.now();
    expect((await upload()).status).toBe(200);
    expect((await upload()).status).toBe(200);
    expect((await upload()).status).toBe(429);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
