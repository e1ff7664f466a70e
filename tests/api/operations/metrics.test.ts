/**
 * `GET /_metrics` (docs/operations.md "Metrics"): off without a token, a bearer token
 * when on, Prometheus' text format that `promtool check metrics` accepts, and counts that follow what
 * clients did: uploads by dialect, source and status, bytes in, image work and store durations,
 * transformations rendered and hit, admission refusals, sweeps, the database and Redis up.
 */
import { execFileSync } from 'child_process';
import crypto from 'crypto';
import net from 'net';
import { startApp, type TestApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';
import { parseSamples, sample, type Samples } from '../../helpers/prometheus-text';

const TOKEN = crypto.randomBytes(24).toString('hex');

describe('without a token', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  test('there is no /_metrics: 404, as any unknown path', async () => {
    expect((await app.http.get('/_metrics')).status).toBe(404);
    expect((await app.http.get('/_metrics').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(404);
  });
});

describe('with IMAGE_API_METRICS_TOKEN', () => {
  let app: TestApp;
  let key: string;
  let port: number;
  beforeAll(async () => {
    app = await startApp({
      IMAGE_API_METRICS_TOKEN: TOKEN,
      REDIS_URL: 'redis://127.0.0.1:6379',
      IMAGE_API_REDIS_PREFIX: `metrics-test-${process.pid}:`,
    });
    key = await app.createKey();
    await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
    port = (app.strapi.server.httpServer.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app?.stop();
  });

  const scrape = async (): Promise<{ text: string; samples: Samples }> => {
    const res = await app.http.get('/_metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    return { text: res.text, samples: parseSamples(res.text) };
  };

  test('a missing or wrong token: 401 with WWW-Authenticate, nothing else said', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      let req = app.http.get('/_metrics');
      if (authorization) req = req.set('Authorization', authorization);
      const res = await req;
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.text).not.toContain('image_api_');
    }
  });

  test('the right token: Prometheus text format, no-store, accepted by promtool', async () => {
    const res = await app.http.get('/_metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    // promtool lints too (names, units, HELP): it exits non-zero on any problem and says which.
    expect(execFileSync('promtool', ['check', 'metrics'], { input: res.text, encoding: 'utf8' })).toBe('');
  });

  test('uploads counted by dialect, source kind and status; bytes in; image work and store timed', async () => {
    const before = (await scrape()).samples;
    const picture = await png(64, 48);
    expect((await app.upload(key, picture)).status).toBe(200);
    expect((await app.http.post('/1/upload').query({ key }).type('form').send({ image: picture.toString('base64') })).status).toBe(200);
    expect((await app.http.post('/api/1/upload').set('X-API-Key', key).type('form').send({})).status).toBe(400);
    expect((await app.http.post('/api/1/upload').set('X-API-Key', 'no such key').type('form').send({ source: 'https://example.com/a.jpg' })).status).toBe(401);
    // The same key in the body: refused after the body is read, when its source is known.
    expect((await app.http.post('/api/1/upload').type('form').send({ key: 'no such key', source: 'https://example.com/a.jpg' })).status).toBe(401);
    const after = (await scrape()).samples;
    const grew = (series: string) => sample(after, series) - sample(before, series);

    expect(grew('image_api_uploads_total{dialect="api",source="file",status="200"}')).toBe(1);
    expect(grew('image_api_uploads_total{dialect="imgbb",source="base64",status="200"}')).toBe(1);
    expect(grew('image_api_uploads_total{dialect="api",source="none",status="400"}')).toBe(1);
    // Refused before its body was read (the key in the header is checked first): no source kind yet.
    expect(grew('image_api_uploads_total{dialect="api",source="none",status="401"}')).toBe(1);
    expect(grew('image_api_uploads_total{dialect="api",source="url",status="401"}')).toBe(1);
    expect(grew('image_api_upload_bytes_total{source="file"}')).toBe(picture.length);
    expect(grew('image_api_upload_bytes_total{source="base64"}')).toBe(picture.length);
    expect(grew('image_api_image_work_seconds_count')).toBe(2);
    expect(grew('image_api_store_seconds_count')).toBe(2);
    expect(grew('image_api_image_work_seconds_sum')).toBeGreaterThan(0);
    expect(grew('image_api_image_work_seconds_bucket{le="+Inf"}')).toBe(2);
  });

  test('transformations: a render, then hits', async () => {
    const image = (await app.upload(key, await png(300, 200))).body.image;
    const url = `/img/_/pr:thumbnail/plain/${image.url}@jpg`;
    const before = (await scrape()).samples;
    expect((await app.http.get(url)).status).toBe(200);
    expect((await app.http.get(url)).status).toBe(200);
    expect((await app.http.get(url)).status).toBe(200);
    const after = (await scrape()).samples;
    const grew = (series: string) => sample(after, series) - sample(before, series);
    expect(grew('image_api_transform_results_total{result="render"}')).toBe(1);
    expect(grew('image_api_transform_results_total{result="hit"}')).toBe(2);
    expect(grew('image_api_render_seconds_count')).toBe(1);
  });

  test('an admission refusal is counted by reason', async () => {
    app.strapi.config.set('plugin::image-api.maxRequestsPerAddress', 1);
    const held = net.connect({ port, host: '127.0.0.1' });
    held.on('error', () => undefined);
    try {
      held.write(`POST /api/1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\nsource=`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = (await scrape()).samples;
      expect((await app.upload(key, await png(8, 8))).status).toBe(429);
      const after = (await scrape()).samples;
      expect(sample(after, 'image_api_admission_refusals_total{reason="address"}') - sample(before, 'image_api_admission_refusals_total{reason="address"}')).toBe(1);
      // An upload all the same: answered 429 before its body, counted without a source kind.
      expect(sample(after, 'image_api_uploads_total{dialect="api",source="none",status="429"}') - sample(before, 'image_api_uploads_total{dialect="api",source="none",status="429"}')).toBe(1);
    } finally {
      held.destroy();
      app.strapi.config.set('plugin::image-api.maxRequestsPerAddress', 1000);
    }
  });

  test('sweeps counted with what they removed; the database and Redis up', async () => {
    const image = (await app.upload(key, await png(16, 16))).body.image;
    await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
    const before = (await scrape()).samples;
    expect(await app.strapi.plugin('image-api').service('expiry-sweep').run()).toBe(1);
    await app.strapi.plugin('image-api').service('debris-sweep').run();
    const { samples: after, text } = await scrape();
    const grew = (series: string) => sample(after, series) - sample(before, series);
    expect(grew('image_api_sweeps_total{sweep="expiry",outcome="ok"}')).toBe(1);
    expect(grew('image_api_swept_total{what="expired_images"}')).toBe(1);
    expect(grew('image_api_sweeps_total{sweep="debris",outcome="ok"}')).toBe(1);
    expect(sample(after, 'image_api_database_up')).toBe(1);
    expect(sample(after, 'image_api_redis_up')).toBe(1);
    // Node's own: the process's memory and CPU.
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE image_api_image_work_seconds histogram');
  });
});
