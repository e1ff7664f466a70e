/**
 * Two production instances behind Varnish (balancer and cache, purged by the instances), on their
 * own PostgreSQL, Redis and Ceph S3 (with Varnish as the bucket's CDN), started by `npm run cluster`
 * (docs/deployment.md). Everything goes through the balancer unless a test is about one instance;
 * clients are told apart by their loopback source address (127.0.0.2, ...).
 */
import crypto from 'crypto';
import { apikey, bucketKeys, loggedRequests, multipart, openDatabase, promQuery, request, servedByAll, sleep, startCluster, uploadFile, type Cluster } from './helpers/cluster';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server';
import { jpeg, png } from '../helpers/fixtures';
import type { Knex } from 'knex';
import net from 'net';
import sharp from 'sharp';

let cluster: Cluster;
let fixtures: FixtureServer;
let db: Knex;
const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');
/** A photo-like JPEG of noise, made natively (the fixtures' JS pixel loop takes seconds at this size). */
const noisyJpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: 85 }).toBuffer();

/** Each image record with the bucket objects its file row points at: the original and both variants. */
async function recordedObjects(): Promise<Array<{ name: string; objects: string[] }>> {
  const prefix = `${cluster.state.s3.baseUrl}/`;
  const rows: Array<{ name: string; url: string; formats: unknown }> = await db('image_api_images as i')
    .leftJoin('files as f', 'f.hash', 'i.name')
    .select('i.name', 'f.url', 'f.formats');
  return rows.map(({ name, url, formats }) => {
    const variants = (typeof formats === 'string' ? JSON.parse(formats) : formats) as Record<string, { url: string }> | null;
    const urls = [url, ...Object.values(variants ?? {}).map((v) => v.url)];
    // A record lacking its file row or a variant names fewer than three objects: counted as missing.
    return { name, objects: urls.length === 3 && urls.every(Boolean) ? urls.map((u) => u.slice(prefix.length)) : [`${name} (incomplete record)`] };
  });
}

beforeAll(async () => {
  fixtures = await startFixtureServer();
  cluster = await startCluster(2, {
    IMAGE_API_URL_ALLOWLIST: '127.0.0.1',
    IMAGE_API_RATE_LIMIT: 'off',
    IMAGE_API_FAILED_AUTH_LIMIT: '10/minute',
    // Every client of the suite is 127.0.0.1 to the instances: it may use all of their slots.
    IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '16',
    // The shortest safe age, and a round every 5 s: the kill test sees the sweep within ~70 s.
    IMAGE_API_SWEEP_AFTER_MS: '60000',
    IMAGE_API_DEBRIS_SWEEP_SECONDS: '5',
    // Images that expire within seconds, swept every second: the purge of an expiry is timed.
    IMAGE_API_MIN_EXPIRATION: '1',
    IMAGE_API_EXPIRY_SWEEP_SECONDS: '1',
  });
  db = openDatabase(cluster.state);
}, 900_000);

afterAll(async () => {
  await db?.destroy();
  const code = await cluster?.stop();
  await fixtures?.close();
  expect(code).toBe(0);
}, 120_000);

describe('storage on S3 through the balancer', () => {
  test('a file, a base64 string and a URL each land in the bucket as original, .th and .md, served from S3 through its CDN', async () => {
    const { url, key, s3 } = cluster.state;
    const file = await png(640, 480);
    const base64 = await jpeg(800, 600);
    const remote = await png(300, 900);
    fixtures.add('remote.png', remote, 'image/png');
    const logged = loggedRequests(cluster.state);
    const answers = [
      await uploadFile(url, key, file, { name: 'file.png' }),
      await request(`${url}/api/1/upload`, { method: 'POST', ...multipart({ key, source: base64.toString('base64') }) }),
      await request(`${url}/api/1/upload`, { method: 'POST', ...multipart({ key, source: fixtures.url('/img/remote.png') }) }),
    ];
    const sent = [file, base64, remote];
    const objects = await bucketKeys(cluster.state);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      const image = answer.json.image;
      expect(image.storage).toBe('aws-s3');
      expect(image.url_viewer).toBe(`${url}/image/${image.id_encoded}`);
      expect(image.md5).toBe(md5(sent[index]));
      for (const [variant, expectedWidth] of [[image, image.width], [image.thumb, 160], [image.medium, Math.min(500, image.width)]] as const) {
        const objectName = variant.filename;
        expect(variant.url).toBe(`${s3.baseUrl}/${objectName}`);
        expect(objects).toContain(objectName);
        const served = await fetch(variant.url);
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toBe(image.mime);
        const bytes = Buffer.from(await served.arrayBuffer());
        expect(bytes.length).toBe(variant.size);
        expect(variant.width).toBe(expectedWidth);
      }
      // The original's bytes are the client's (no metadata to strip in these fixtures).
      expect(md5(Buffer.from(await (await fetch(image.url)).arrayBuffer()))).toBe(md5(sent[index]));
    }
    // Both instances took part.
    expect((await servedByAll(cluster.state, /"POST \/api\/1\/upload/, logged, 3)).size).toBe(2);
  });

  test("the admin panel's CSP lets it show images from the bucket's CDN", async () => {
    const answer = await request(`${cluster.state.url}/admin`);
    expect(answer.status).toBe(200);
    const csp = String(answer.headers['content-security-policy']);
    const cdn = new URL(cluster.state.s3.baseUrl).origin.replace(/[.:/]/g, '\\$&');
    expect(csp).toMatch(new RegExp(`img-src [^;]*${cdn}`));
    expect(csp).toMatch(new RegExp(`media-src [^;]*${cdn}`));
  });
});

describe('serving through the balancer (docs/api.md, "Serving images")', () => {
  /** A GET with its bytes and headers (fetch: this suite's `request` reads text). */
  const fetchImage = async (url: string, accept = 'image/webp,*/*') => {
    const answer = await fetch(url, { headers: { Accept: accept } });
    return { status: answer.status, headers: answer.headers, bytes: Buffer.from(await answer.arrayBuffer()) };
  };
  /** Results are kept after their answer went: waits for the row. */
  const keptRows = async (name: string, count: number) => {
    for (let waited = 0; waited < 10_000; waited += 100) {
      const rows = await db('image_api_renditions').where('image_name', name);
      if (rows.length >= count) return rows;
      await sleep(100);
    }
    throw new Error(`no kept result of ${name}`);
  };
  let image: { url: string; name: string; id_encoded: string };
  beforeAll(async () => {
    const answer = await uploadFile(cluster.state.url, cluster.state.key, await png(1200, 800), { name: 'served.png' });
    expect(answer.status).toBe(200);
    image = answer.json.image;
  });

  test('a transformation is rendered once and kept in the bucket; its repeat is answered by Varnish without reaching an instance', async () => {
    const url = `${cluster.state.url}/img/_/pr:small/plain/${image.url}`;
    const logged = loggedRequests(cluster.state);
    const first = await fetchImage(url);
    expect([first.status, first.headers.get('content-type'), first.headers.get('x-cache-status')]).toEqual([200, 'image/webp', 'MISS']);
    expect(first.headers.get('cache-control')).toBe('public, max-age=2592000, immutable');
    const [row] = await keptRows(image.name, 1);
    expect(await bucketKeys(cluster.state)).toContain(`${row.hash}${row.ext}`);
    const again = await fetchImage(url);
    expect([again.status, again.headers.get('x-cache-status')]).toEqual([200, 'HIT']);
    expect(Buffer.compare(again.bytes, first.bytes)).toBe(0);
    // The second request's log line names no instance: Varnish answered it alone.
    const served = await servedByAll(cluster.state, /"GET \/img\//, logged, 2);
    expect(served.get('-')).toBe(1);
    expect([...served].filter(([upstream]) => upstream !== '-').reduce((n, [, count]) => n + count, 0)).toBe(1);
    // Another Accept is another entry of the cache (and another result).
    const png = await fetchImage(url, 'image/png,*/*');
    expect([png.status, png.headers.get('content-type'), png.headers.get('x-cache-status')]).toEqual([200, 'image/png', 'MISS']);
  });

  test('a result rendered by one instance is read back by the other from S3, not rendered again', async () => {
    const [one, two] = cluster.state.instances;
    const path = `/img/_/pr:medium/plain/${image.url}@jpg`;
    const first = await fetchImage(`${one.url}${path}`);
    expect(first.status).toBe(200);
    const rows = await keptRows(image.name, 3);
    // A second and more later: a new render would carry its own Last-Modified.
    await sleep(1100);
    const second = await fetchImage(`${two.url}${path}`);
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.headers.get('last-modified')).toBe(first.headers.get('last-modified'));
    expect(Buffer.compare(second.bytes, first.bytes)).toBe(0);
    expect(await db('image_api_renditions').where('image_name', image.name)).toHaveLength(rows.length);
  });

  test('a result over 1 MB rendered by one instance is streamed by the other from S3, never read whole: the bytes, a Range, HEAD', async () => {
    const [one, two] = cluster.state.instances;
    const noise = await sharp({ create: { width: 1000, height: 800, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
    const uploaded = await uploadFile(cluster.state.url, cluster.state.key, noise, { name: 'noise.png' });
    expect(uploaded.status).toBe(200);
    const large = uploaded.json.image;
    const path = `/img/_/pr:large/plain/${large.url}@png`;
    const first = await fetchImage(`${one.url}${path}`);
    expect([first.status, first.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(first.bytes.length).toBeGreaterThan(1_000_000);
    await keptRows(large.name, 1);
    const second = await fetchImage(`${two.url}${path}`);
    expect([second.status, second.headers.get('etag'), second.headers.get('content-length')]).toEqual([200, first.headers.get('etag'), String(first.bytes.length)]);
    expect(Buffer.compare(second.bytes, first.bytes)).toBe(0);
    const range = await fetch(`${two.url}${path}`, { headers: { Range: 'bytes=100000-100999' } });
    expect([range.status, range.headers.get('content-range')]).toEqual([206, `bytes 100000-100999/${first.bytes.length}`]);
    expect(Buffer.compare(Buffer.from(await range.arrayBuffer()), first.bytes.subarray(100_000, 101_000))).toBe(0);
    const head = await fetch(`${two.url}${path}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, String(first.bytes.length)]);
    expect(await db('image_api_renditions').where('image_name', large.name)).toHaveLength(1);
  });

  test('deleting the image removes its kept results from the bucket, and the transformation answers 404', async () => {
    const rows = await db('image_api_renditions').where('image_name', image.name);
    expect(rows.length).toBeGreaterThan(0);
    const deleted = await request(`${cluster.state.url}/api/1/delete`, { method: 'POST', ...multipart({ key: cluster.state.key, id: image.id_encoded }) });
    expect(deleted.status).toBe(200);
    const objects = await bucketKeys(cluster.state);
    for (const row of rows) expect(objects).not.toContain(`${row.hash}${row.ext}`);
    expect(await db('image_api_renditions').where('image_name', image.name)).toHaveLength(0);
    // Straight to an instance (what Varnish does with it: "deleted means gone through the cache", below).
    const gone = await fetchImage(`${cluster.state.instances[0].url}/img/_/pr:thumbnail/plain/${image.url}`);
    expect([gone.status, gone.headers.get('cache-control')]).toEqual([404, 'no-store']);
  });
});

describe('metrics', () => {
  test("Prometheus scrapes both instances' /_metrics; the uploads made through the balancer are counted across them", async () => {
    const { url, key, instances } = cluster.state;
    const up = await promQuery(cluster.state, 'up{job="image-api"}');
    expect(up.map((series) => series.metric.instance).sort()).toEqual(instances.map((i) => `127.0.0.1:${i.port}`).sort());
    expect(up.every((series) => series.value === 1)).toBe(true);
    const stored = 'sum(image_api_uploads_total{dialect="api",source="file",status="200"})';
    // The count as scraped once the earlier tests' uploads are in it: unchanged across a whole scrape
    // interval (2 s), since nothing uploads meanwhile.
    const count = async () => (await promQuery(cluster.state, stored))[0]?.value ?? 0;
    let before = await count();
    for (let settled = false; !settled; ) {
      await sleep(2_500);
      const again = await count();
      settled = again === before;
      before = again;
    }
    const logged = loggedRequests(cluster.state);
    for (let i = 0; i < 4; i++) expect((await uploadFile(url, key, await png(40 + i, 30), { name: `counted-${i}.png` })).status).toBe(200);
    expect((await servedByAll(cluster.state, /"POST \/api\/1\/upload/, logged, 4)).size).toBe(2);
    // Scraped every 2 s: the count shows within a few scrapes.
    let after = before;
    for (let waited = 0; after < before + 4 && waited < 20_000; waited += 500) {
      await sleep(500);
      after = await count();
    }
    expect(after).toBe(before + 4);
    const database = await promQuery(cluster.state, 'image_api_database_up');
    expect(database.map((series) => series.value)).toEqual([1, 1]);
  });
});

describe('state shared by the instances', () => {
  test("the viewer's views count is exact under 60 concurrent views on both instances", async () => {
    const { url, key } = cluster.state;
    const logged = loggedRequests(cluster.state);
    const upload = await uploadFile(url, key, await png(200, 200));
    expect(upload.status).toBe(200);
    const id = upload.json.image.id_encoded;
    const views = await Promise.all(Array.from({ length: 60 }, () => request(`${url}/image/${id}`)));
    expect(views.map((v) => v.status)).toEqual(Array(60).fill(200));
    const served = await servedByAll(cluster.state, new RegExp(`"GET /image/${id} `), logged, 60);
    expect([...served.values()].reduce((a, b) => a + b, 0)).toBe(60);
    expect(served.size).toBe(2);
    console.log(`60 concurrent views served by ${JSON.stringify(Object.fromEntries(served))}`);
    const row = await db('image_api_images').where({ id_encoded: id }).first('views');
    expect(Number(row.views)).toBe(60);
  });

  test("one key's rate limit holds across both instances (Redis)", async () => {
    const { url } = cluster.state;
    const key = await apikey(cluster.state, 'create', '--name', 'five-a-minute', '--rate-limit', '5/minute');
    expect(key).toMatch(/^img_/);
    const image = await png(64, 64);
    const logged = loggedRequests(cluster.state);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await uploadFile(url, key, image)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // The eight went to both instances.
    const byInstance = await servedByAll(cluster.state, /"POST \/api\/1\/upload/, logged, 8);
    console.log(`rate limit 5/minute: ${statuses.join(' ')}; served by ${JSON.stringify(Object.fromEntries(byInstance))}`);
    expect(byInstance.size).toBe(2);
  });

  test('a key an admin revokes in the panel is refused by both instances within the key cache time (2 s)', async () => {
    const { url } = cluster.state;
    const key = await apikey(cluster.state, 'create', '--name', 'to-revoke');
    const image = await png(32, 32);
    // Both instances have the key cached as valid.
    for (const instance of cluster.state.instances) expect((await uploadFile(instance.url, key, image)).status).toBe(200);
    // The first admin, then the revocation as the Content Manager sends it, through the balancer.
    const json = { 'Content-Type': 'application/json' };
    const admin = { email: 'ops@img.test', password: 'Admin-pass-1234', firstname: 'Ops', lastname: 'Team' };
    const registered = await request(`${url}/admin/register-admin`, { method: 'POST', headers: json, body: Buffer.from(JSON.stringify(admin)) });
    expect(registered.status).toBe(200);
    const token = registered.json.data.token;
    const { document_id: documentId } = await db('image_api_keys').where({ name: 'to-revoke' }).first('document_id');
    const revoked = await request(`${url}/content-manager/collection-types/plugin::image-api.api-key/${documentId}`, {
      method: 'PUT',
      headers: { ...json, Authorization: `Bearer ${token}` },
      body: Buffer.from(JSON.stringify({ active: false })),
    });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    const refusedAfter: number[] = [];
    for (const instance of cluster.state.instances) {
      for (;;) {
        const answer = await uploadFile(instance.url, key, image);
        if (answer.status !== 200) {
          expect(answer.status).toBe(403);
          expect(answer.json.error).toEqual({ message: 'API key revoked', code: 100 });
          refusedAfter.push(Date.now() - revokedAt);
          break;
        }
        expect(Date.now() - revokedAt).toBeLessThan(2500);
        await sleep(50);
      }
    }
    console.log(`revocation refused by the instances ${refusedAfter.map((ms) => `${ms} ms`).join(' and ')} after the admin saved it`);
    expect(Math.max(...refusedAfter)).toBeLessThan(2500);
    expect((await uploadFile(url, key, image)).status).toBe(403);
  });

  test("failed authentications lock out the guessing client's address only, whatever X-Forwarded-For it sends", async () => {
    const { url, key } = cluster.state;
    const image = await png(32, 32);
    const guesser = '127.0.0.2';
    for (let i = 0; i < 10; i++) {
      // A forged X-Forwarded-For does not make the guesses someone else's: Varnish replaces it.
      const answer = await uploadFile(url, `img_wrong${i}`, image, { from: guesser, headers: { 'X-Forwarded-For': `127.0.0.${50 + i}` } });
      expect(answer.status).toBe(401);
    }
    const locked = await uploadFile(url, key, image, { from: guesser });
    expect(locked.status).toBe(429);
    expect(locked.json.error.message).toMatch(/failed authentication/);
    // Locked on both instances (the counter is in Redis), with a key that is valid.
    for (const instance of cluster.state.instances) {
      // Direct to an instance, the peer is not a trusted proxy: X-Forwarded-For is ignored there.
      expect((await uploadFile(instance.url, key, image, { from: guesser })).status).toBe(429);
    }
    // Other clients are not affected, through the balancer or directly.
    expect((await uploadFile(url, key, image, { from: '127.0.0.3' })).status).toBe(200);
    expect((await uploadFile(url, key, image, { from: '127.0.0.4', headers: { 'X-Forwarded-For': guesser } })).status).toBe(200);
  });
});

describe('deleted means gone through the cache (docs/deployment.md, "Caching images")', () => {
  interface Image {
    id_encoded: string;
    name: string;
    url: string;
    delete_url: string;
    medium: { url: string };
  }
  /** What a client fetches of an image: the original and a variant from the bucket's CDN, two transformations from the front. */
  const urlsOf = (image: Image) => [
    image.url,
    image.medium.url,
    `${cluster.state.url}/img/_/pr:small/plain/${image.url}`,
    `${cluster.state.url}/img/_/pr:thumbnail/plain/${image.url}@jpg`,
  ];
  const get = (url: string) => request(url, { headers: { Accept: 'image/webp,*/*' } });

  async function uploadCached(name: string, fields: Record<string, string> = {}): Promise<Image> {
    const answer = await request(`${cluster.state.url}/api/1/upload`, {
      method: 'POST',
      ...multipart({ key: cluster.state.key, ...fields }, { field: 'source', name, type: 'image/png', bytes: await png(900, 600) }),
    });
    expect(answer.status).toBe(200);
    const image: Image = answer.json.image;
    // Each URL twice: the second answered by Varnish alone.
    for (const url of urlsOf(image)) {
      expect([url, (await get(url)).status]).toEqual([url, 200]);
      const again = await get(url);
      expect([url, again.status, again.headers['x-cache-status']]).toEqual([url, 200, 'HIT']);
    }
    return image;
  }

  /** Polls every URL every 50 ms until each answers 404; ms from `since` to each one's first 404. */
  async function goneAfter(urls: string[], since: number, timeoutMs = 10_000): Promise<number[]> {
    const gone: Array<number | null> = urls.map(() => null);
    while (gone.includes(null) && Date.now() - since < timeoutMs) {
      await Promise.all(
        urls.map(async (url, i) => {
          if (gone[i] === null && (await get(url)).status === 404) gone[i] = Date.now() - since;
        })
      );
      if (gone.includes(null)) await sleep(50);
    }
    expect(gone.map((ms, i) => [urls[i], ms === null ? 'still served' : 'gone'])).toEqual(urls.map((url) => [url, 'gone']));
    return gone as number[];
  }

  test('deleted by its delete link: its direct URL, a variant and two transformations, cached, answer 404 within 2 s of the answer', async () => {
    const image = await uploadCached('purged.png');
    const deleted = await request(image.delete_url, { method: 'POST', headers: { Accept: 'application/json' } });
    expect(deleted.status).toBe(200);
    const answeredAt = Date.now();
    const times = await goneAfter(urlsOf(image), answeredAt);
    console.log(`deleted: gone from the cache ${times.map((ms) => `${ms} ms`).join(', ')} after the answer (original, .md, two transformations)`);
    expect(Math.max(...times)).toBeLessThan(2000);
  });

  test("deleted: its kept transformation results, cached by the bucket's CDN (an instance reads them through it), answer 404 there within 2 s too", async () => {
    const image = await uploadCached('kept-results.png');
    // Kept after their answers went: both transformations' rows.
    let kept: Array<{ url: string }> = [];
    for (let waited = 0; kept.length < 2 && waited < 10_000; waited += 100) {
      kept = await db('image_api_renditions').where('image_name', image.name).select('url');
      if (kept.length < 2) await sleep(100);
    }
    const urls = kept.map((row) => row.url);
    expect(urls.map((url) => url.startsWith(`${cluster.state.s3.baseUrl}/`))).toEqual([true, true]);
    for (const url of urls) {
      expect([url, (await get(url)).status]).toEqual([url, 200]);
      expect([url, (await get(url)).headers['x-cache-status']]).toEqual([url, 'HIT']);
    }
    const deleted = await request(image.delete_url, { method: 'POST', headers: { Accept: 'application/json' } });
    expect(deleted.status).toBe(200);
    const times = await goneAfter(urls, Date.now());
    console.log(`deleted: its kept results gone from the bucket's CDN ${times.map((ms) => `${ms} ms`).join(', ')} after the answer`);
    expect(Math.max(...times)).toBeLessThan(2000);
  });

  test('expired: the same within 2 s of the sweep that removes it', async () => {
    const image = await uploadCached('expiring.png', { expiration: '8' });
    // Its transformations say how long they have left: no cache keeps them past the expiry. Its
    // files, served from the bucket (S3 sends no Cache-Control; the CDN keeps them a day), are what
    // only the purge removes.
    for (const url of urlsOf(image).slice(2)) {
      const maxAge = /max-age=(\d+)/.exec((await get(url)).headers['cache-control'] ?? '');
      expect([url, Number(maxAge?.[1]) <= 8]).toEqual([url, true]);
    }
    let sweptAt = 0;
    for (const started = Date.now(); !sweptAt && Date.now() - started < 30_000; await sleep(50)) {
      if (!(await db('image_api_images').where('id_encoded', image.id_encoded).first('id'))) sweptAt = Date.now();
    }
    expect(sweptAt).toBeGreaterThan(0);
    const times = await goneAfter(urlsOf(image), sweptAt);
    console.log(`expired: gone from the cache ${times.map((ms) => `${ms} ms`).join(', ')} after the sweep removed it`);
    expect(Math.max(...times)).toBeLessThan(2000);
  });

  test("taken down by a reviewer in the admin's review: the same within 2 s of the answer", async () => {
    // The first admin (or the one another test registered), through the balancer.
    const json = { 'Content-Type': 'application/json' };
    const admin = { email: 'ops@img.test', password: 'Admin-pass-1234', firstname: 'Ops', lastname: 'Team' };
    let session = await request(`${cluster.state.url}/admin/register-admin`, { method: 'POST', headers: json, body: Buffer.from(JSON.stringify(admin)) });
    if (session.status !== 200) session = await request(`${cluster.state.url}/admin/login`, { method: 'POST', headers: json, body: Buffer.from(JSON.stringify({ email: admin.email, password: admin.password })) });
    expect(session.status).toBe(200);
    const image = await uploadCached('taken-down.png');
    const takenDown = await request(`${cluster.state.url}/image-api/review/images/${image.id_encoded}/takedown`, {
      method: 'POST',
      headers: { ...json, Authorization: `Bearer ${session.json.data.token}` },
      body: Buffer.from(JSON.stringify({ reason: 'the cluster test takes it down' })),
    });
    expect(takenDown.status).toBe(200);
    const answeredAt = Date.now();
    const times = await goneAfter(urlsOf(image), answeredAt);
    console.log(`taken down: gone from the cache ${times.map((ms) => `${ms} ms`).join(', ')} after the answer`);
    expect(Math.max(...times)).toBeLessThan(2000);
  });

  test('the instance that recorded the purge killed before sending it: another instance sends it, within 2 s of the answer', async () => {
    // A purger that takes the connection and never answers: the recorder's purge hangs there.
    const held: net.Socket[] = [];
    const blackHole = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    try {
      const recorder = await cluster.startExtraInstance(3, { IMAGE_API_PURGE_VARNISH: `http://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}` });
      const image = await uploadCached('orphaned-purge.png');
      const link = new URL(image.delete_url);
      const deleted = await request(`${recorder.url}${link.pathname}`, { method: 'POST', headers: { Accept: 'application/json' } });
      expect(deleted.status).toBe(200);
      // Before its purge goes: a new purge waits 100 ms for others to go with it (purge/purge-journal.ts).
      process.kill(recorder.pid, 'SIGKILL');
      const answeredAt = Date.now();
      const times = await goneAfter(urlsOf(image), answeredAt);
      console.log(`recorder killed: gone from the cache ${times.map((ms) => `${ms} ms`).join(', ')} after the answer`);
      expect(Math.max(...times)).toBeLessThan(2000);
    } finally {
      for (const socket of held) socket.destroy();
      blackHole.close();
    }
  });

  test('only the instances may purge: a PURGE from another address answers 403 and purges nothing', async () => {
    const image = await uploadCached('kept.png');
    const url = `${cluster.state.url}/img/_/pr:small/plain/${image.url}`;
    const purges: Array<{ path: string; headers: Record<string, string> }> = [
      { path: '/', headers: { 'xkey-purge': `img-${image.id_encoded}` } },
      { path: new URL(url).pathname, headers: {} },
    ];
    for (const purge of purges) {
      const answer = await request(`${cluster.state.url}${purge.path}`, { method: 'PURGE', headers: purge.headers, from: '127.0.0.2' });
      expect(answer.status).toBe(403);
    }
    const still = await get(url);
    expect([still.status, still.headers['x-cache-status']]).toEqual([200, 'HIT']);
    // The tags stay behind Varnish: a client sees none.
    expect([still.headers['surrogate-key'], still.headers['cache-tag'], still.headers.xkey]).toEqual([undefined, undefined, undefined]);
  });
});

describe('an instance killed mid-burst', () => {
  test('kill -9 leaves no record without its objects and, after the periodic sweep, no orphan object', async () => {
    const { url, key, instances } = cluster.state;
    const testStarted = Date.now();
    const phase = (what: string) => console.log(`${((Date.now() - testStarted) / 1000).toFixed(1)} s: ${what}`);
    const images = await Promise.all(Array.from({ length: 24 }, (_, i) => noisyJpeg(1600 + i, 1200)));
    const before = (await db('image_api_images').count({ n: '*' }))[0].n;
    const keys = images.map(() => crypto.randomUUID());
    const burst = Promise.all(
      images.map(async (bytes, i) => {
        await sleep(i * 40); // a steady stream, so some are in flight whenever the kill comes
        return uploadFile(url, key, bytes, { headers: { 'Idempotency-Key': keys[i] } });
      })
    );
    phase('fixtures ready');
    const burstStarted = Date.now();
    await sleep(500);
    process.kill(instances[1].pid, 'SIGKILL');
    const answers = await burst;
    console.log(`the burst took ${((Date.now() - burstStarted) / 1000).toFixed(1)} s`);
    const statuses = answers.map((a) => a.status);
    const failed = statuses.filter((s) => s !== 200).length;
    console.log(`kill -9 mid-burst: ${JSON.stringify(statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {}))}`);
    // 502 from Varnish for what the killed instance held (an upload already sent is never replayed;
    // one its connection was refused for goes to the survivor); the survivor, taking the whole burst
    // on one core, may also answer 503 with Retry-After once its 16 slots are full (admission control).
    expect(statuses.every((s) => s === 200 || s === 502 || s === 503)).toBe(true);
    for (const answer of answers.filter((a) => a.status === 503)) expect(answer.headers['retry-after']).toBe('2');

    // At once: every record has its three objects.
    const complete = async () => {
      const objects = new Set(await bucketKeys(cluster.state));
      const records = await recordedObjects();
      const missing = records.flatMap((r) => r.objects.filter((o) => !objects.has(o)));
      // Kept transformation results are objects of their own, each with its row.
      const kept: Array<{ url: string }> = await db('image_api_renditions').select('url');
      const known = new Set([...records.flatMap((r) => r.objects), ...kept.map((r) => r.url.slice(`${cluster.state.s3.baseUrl}/`.length))]);
      const orphans = [...objects].filter((o) => !known.has(o));
      const journal = Number((await db('image_api_pending_uploads').count({ n: '*' }))[0].n);
      return { missing, orphans, journal, records: records.length };
    };
    phase('burst answered');
    const atOnce = await complete();
    phase('bucket and records compared');
    expect(atOnce.missing).toEqual([]);
    console.log(`right after the kill: ${atOnce.orphans.length} orphan objects, ${atOnce.journal} journal rows`);

    // After the surviving instance's periodic sweep (age 60 s, a round every 5 s): no orphan.
    const killedAt = Date.now();
    let after = atOnce;
    while ((after.orphans.length || after.journal) && Date.now() - killedAt < 120_000) {
      await sleep(2000);
      after = await complete();
    }
    console.log(`swept ${atOnce.orphans.length} orphan objects ${((Date.now() - killedAt) / 1000).toFixed(0)} s after the kill`);
    expect(after).toEqual({ missing: [], orphans: [], journal: 0, records: after.records });

    // The clients whose upload failed retry with the same Idempotency-Key: each image is stored once.
    const retriesStarted = Date.now();
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 200) continue;
      expect((await uploadFile(url, key, images[i], { headers: { 'Idempotency-Key': keys[i] } })).status).toBe(200);
    }
    console.log(`the retries took ${((Date.now() - retriesStarted) / 1000).toFixed(1)} s`);
    expect(Number((await db('image_api_images').count({ n: '*' }))[0].n) - Number(before)).toBe(24);
    // The kill did come mid-burst: some uploads were in flight on the killed instance.
    expect(failed).toBeGreaterThan(0);
    expect((await complete()).orphans).toEqual([]);
  });
});
