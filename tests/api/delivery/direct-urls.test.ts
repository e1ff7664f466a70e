/**
 * Direct image URLs served by the app (docs/api.md, "Direct URLs", the local provider): immutable caching, a
 * strong ETag and Last-Modified, 304 on revalidation, HEAD, one Range; 404 with no-store once the
 * image is deleted or expired; the viewer page keeps no-cache; other Media Library files keep
 * Strapi's behaviour.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';

const app = useApp({ IMAGE_API_CACHE_MAX_AGE: '86400' });

/** A GET whose body is kept as bytes whatever its type. */
const bytesOf = (req: ReturnType<typeof app.http.get>) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

let image: Record<string, any>;
beforeAll(async () => {
  const res = await app.upload(app.key, await jpeg(640, 480), { filename: 'direct.jpg' });
  expect(res.status).toBe(200);
  image = res.body.image;
});

test.each(['url', 'thumb', 'medium'])('%s: 200, the stored bytes, immutable for cacheMaxAgeSeconds, ETag and Last-Modified', async (which) => {
  const url: string = which === 'url' ? image.url : image[which].url;
  const res = await bytesOf(app.http.get(app.pathOf(url)));
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('public, max-age=86400, immutable');
  expect(res.headers['content-type']).toBe('image/jpeg');
  const stored = fs.readFileSync(path.join(app.uploadsDir, path.basename(app.pathOf(url))));
  expect(Buffer.compare(res.body, stored)).toBe(0);
  const stat = fs.statSync(path.join(app.uploadsDir, path.basename(app.pathOf(url))));
  expect(res.headers.etag).toBe(`"${Math.floor(stat.mtimeMs / 1000).toString(16)}-${stat.size.toString(16)}"`);
  expect(res.headers['last-modified']).toBe(stat.mtime.toUTCString());
  expect(res.headers['accept-ranges']).toBe('bytes');
  // Served ahead of Strapi's middlewares: no session cookie, no page security headers.
  expect(res.headers['set-cookie']).toBeUndefined();
});

test('If-None-Match and If-Modified-Since answer 304 with no body; a stale ETag gets the file', async () => {
  const url = app.pathOf(image.url);
  const first = await app.http.get(url);
  const byTag = await app.http.get(url).set('If-None-Match', first.headers.etag);
  expect([byTag.status, byTag.text ?? '']).toEqual([304, '']);
  const byDate = await app.http.get(url).set('If-Modified-Since', first.headers['last-modified']);
  expect(byDate.status).toBe(304);
  const stale = await app.http.get(url).set('If-None-Match', '"0-0"');
  expect(stale.status).toBe(200);
});

test('HEAD: the headers of the GET, no body', async () => {
  const url = app.pathOf(image.url);
  const head = await app.http.head(url);
  expect(head.status).toBe(200);
  expect(head.headers['content-length']).toBe(String(fs.statSync(path.join(app.uploadsDir, path.basename(url))).size));
  expect(head.headers['cache-control']).toBe('public, max-age=86400, immutable');
});

test('Range: one range answers 206 with those bytes; an unsatisfiable one 416', async () => {
  const url = app.pathOf(image.url);
  const stored = fs.readFileSync(path.join(app.uploadsDir, path.basename(url)));
  const part = await bytesOf(app.http.get(url).set('Range', 'bytes=100-199'));
  expect(part.status).toBe(206);
  expect(part.headers['content-range']).toBe(`bytes 100-199/${stored.length}`);
  expect(Buffer.compare(part.body, stored.subarray(100, 200))).toBe(0);
  const tail = await bytesOf(app.http.get(url).set('Range', 'bytes=-10'));
  expect(Buffer.compare(tail.body, stored.subarray(stored.length - 10))).toBe(0);
  const beyond = await app.http.get(url).set('Range', `bytes=${stored.length + 10}-`);
  expect([beyond.status, beyond.headers['content-range']]).toEqual([416, `bytes */${stored.length}`]);
});

test("the viewer page keeps no-cache (it counts views)", async () => {
  const res = await app.http.get(app.pathOf(image.url_viewer));
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toMatch(/no-cache|no-store/);
});

test('deleted: every URL of the image answers 404 with no-store, also right after it was served from memory', async () => {
  const res = await app.upload(app.key, await jpeg(200, 100), { filename: 'soon-gone.jpg' });
  const urls = [res.body.image.url, res.body.image.thumb.url, res.body.image.medium.url].map(app.pathOf);
  for (const url of urls) expect((await app.http.get(url)).status).toBe(200);
  const deleted = await app.http.post('/api/1/delete').set('X-API-Key', app.key).send({ id: res.body.image.id_encoded });
  expect(deleted.status).toBe(200);
  for (const url of urls) {
    const gone = await app.http.get(url);
    expect([url, gone.status, gone.headers['cache-control']]).toEqual([url, 404, 'no-store']);
  }
});

test('expired: 404 with no-store from the instant it expires, before the sweep', async () => {
  const res = await app.upload(app.key, await jpeg(200, 100), { filename: 'expiring.jpg' });
  const url = app.pathOf(res.body.image.url);
  expect((await app.http.get(url)).status).toBe(200);
  await app.strapi.db.connection('image_api_images').where('id_encoded', res.body.image.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
  app.strapi.plugin('image-api').service('image-sources').forget([res.body.image.name]);
  const gone = await app.http.get(url);
  expect([gone.status, gone.headers['cache-control']]).toEqual([404, 'no-store']);
  expect(fs.existsSync(path.join(app.uploadsDir, path.basename(url)))).toBe(true);
});

test('an image that expires is kept by no cache past its expiry: max-age is the seconds left, from the app and from memory, its variants and transformations too', async () => {
  const res = await app.upload(app.key, await jpeg(200, 100), { filename: 'soon.jpg', fields: { expiration: 'PT10M' } });
  expect(res.status).toBe(200);
  const { image: soon } = res.body;
  for (const url of [soon.url, soon.thumb.url, soon.medium.url, `/img/_/pr:small/plain/${soon.url}@png`].map((u: string) => (u.startsWith('/') ? u : app.pathOf(u)))) {
    for (const from of ['app', 'memory']) {
      const served = await app.http.get(url);
      const maxAge = Number(/^public, max-age=(\d+), immutable$/.exec(served.headers['cache-control'])?.[1]);
      expect([url, from, served.status]).toEqual([url, from, 200]);
      expect(maxAge).toBeGreaterThan(590);
      expect(maxAge).toBeLessThanOrEqual(600);
    }
  }
});

test('cache tags name the image, and all of them (no purger configured: the same tags)', async () => {
  for (const url of [image.url, image.thumb.url, image.medium.url].map(app.pathOf)) {
    const res = await app.http.get(url);
    expect([res.status, res.headers['surrogate-key'], res.headers['cache-tag']]).toEqual([200, `img-${image.id_encoded} image-api`, `img-${image.id_encoded},image-api`]);
  }
});

test("a Media Library file that is not an API image keeps Strapi's serving (no immutable caching)", async () => {
  fs.writeFileSync(path.join(app.uploadsDir, 'editor_upload_1a2b3c.jpg'), await jpeg(10, 10));
  const res = await app.http.get('/uploads/editor_upload_1a2b3c.jpg');
  expect(res.status).toBe(200);
  expect(res.headers['cache-control'] ?? '').not.toContain('immutable');
});

test('a file that is not there: 404 with no-store; a path outside uploads/ is not served', async () => {
  const missing = await app.http.get('/uploads/never_was_abc.jpg');
  expect([missing.status, missing.headers['cache-control']]).toEqual([404, 'no-store']);
  const traversal = await app.http.get('/uploads/..%2F..%2Fpackage.json');
  expect([traversal.status, traversal.headers['cache-control']]).toEqual([404, 'no-store']);
});

test('a hot file is answered before the app (the fast path): same status, headers and bytes, no lookup by the app', async () => {
  const res = await app.upload(app.key, await jpeg(300, 200), { filename: 'hot.jpg' });
  const url = app.pathOf(res.body.image.medium.url);
  const first = await bytesOf(app.http.get(url));
  const find = jest.spyOn(app.strapi.plugin('image-api').service('direct-files'), 'find');
  try {
    const hot = await bytesOf(app.http.get(url));
    const revalidated = await app.http.get(url).set('If-None-Match', first.headers.etag);
    const head = await app.http.head(url);
    expect(find).not.toHaveBeenCalled();
    expect(hot.status).toBe(200);
    for (const header of ['cache-control', 'etag', 'last-modified', 'content-type', 'content-length', 'accept-ranges', 'x-content-type-options']) {
      expect([header, hot.headers[header]]).toEqual([header, first.headers[header]]);
    }
    expect(Buffer.compare(hot.body, first.body)).toBe(0);
    expect([revalidated.status, revalidated.headers.etag]).toEqual([304, first.headers.etag]);
    expect([head.status, head.headers['content-length']]).toEqual([200, first.headers['content-length']]);
    // A Range goes to the app.
    expect((await app.http.get(url).set('Range', 'bytes=0-3')).status).toBe(206);
    expect(find).toHaveBeenCalledTimes(1);
  } finally {
    find.mockRestore();
  }
});
