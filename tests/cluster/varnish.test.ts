/**
 * The VCL `npm run cluster` runs (tools/cluster/varnish.js), part by part, in seconds: the real
 * varnishd and varnishncsa in front of two stand-in instances and a stand-in bucket that say what
 * reached them. The cluster suite (cluster.test.ts) proves the whole through the real app; this one
 * what the app never shows there: an instance failing or draining, the exact Accept classes, a
 * forged X-Forwarded-For, the Host a bucket object is hashed under.
 */
import http from 'http';
import fs from 'fs';
import os from 'os';
import path from 'path';
import type { AddressInfo } from 'net';
import { request, type Answer } from '../../tools/support/http/http-client';
import { freePort } from '../../tools/support/servers/ports';
import { startVarnish, type Varnish } from '../../tools/cluster/varnish';

/** What reached a stand-in: method, path and the headers the VCL sets or strips. */
interface Seen {
  method: string;
  url: string;
  host: string;
  accept: string;
  xff: string;
  cookie: string;
  authorization: string;
  /** The body's bytes. */
  bytes: number;
}

interface StandIn {
  name: string;
  port: number;
  seen: Seen[];
  /** /_health's status: 204 ready, 503 draining. */
  health: number;
  /** Stops listening, its connections closed (a killed instance), until `listen`. */
  close(): Promise<void>;
  listen(): Promise<void>;
}

/** When `/img/expiring` expires: its answers' max-age is the seconds left, then it is a 404. */
let expiresAt = 0;

/**
 * A stand-in instance: `/img/<name>` answers as the app does (a month, immutable, `Vary: Accept`,
 * tagged `img-<name> image-api`); `/img/gone` a `no-store` 404; `/fail/...` drops the connection on
 * `failing` stand-ins; `/busy/...` answers 503 on them; anything else 200 with what it saw.
 */
async function startStandIn(name: string, failing = false): Promise<StandIn> {
  const standIn: StandIn = { name, port: 0, seen: [], health: 204, close: async () => undefined, listen: async () => undefined };
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      const url = req.url ?? '/';
      if (url === '/_health') {
        res.writeHead(standIn.health).end();
        return;
      }
      const h = (header: string) => String(req.headers[header] ?? '-');
      standIn.seen.push({ method: req.method ?? '', url, host: h('host'), accept: h('accept'), xff: h('x-forwarded-for'), cookie: h('cookie'), authorization: h('authorization'), bytes });
      if (failing && url.startsWith('/fail/')) {
        req.socket.destroy();
        return;
      }
      if (failing && url.startsWith('/busy/')) {
        res.writeHead(503, { 'Retry-After': '2', 'Content-Type': 'text/plain' }).end('busy');
        return;
      }
      if (url === '/img/expiring' && Date.now() < expiresAt) {
        res.writeHead(200, { 'Cache-Control': `public, max-age=${Math.ceil((expiresAt - Date.now()) / 1000)}`, 'Content-Type': 'text/plain' }).end('expiring');
        return;
      }
      if (url === '/img/gone' || url === '/img/expiring') {
        res.writeHead(404, { 'Cache-Control': 'no-store', 'Content-Type': 'text/plain' }).end('gone');
        return;
      }
      const image = /^\/img\/([a-z0-9]+)/.exec(url);
      const headers: Record<string, string> = { 'Content-Type': 'text/plain' };
      if (image) {
        Object.assign(headers, {
          'Cache-Control': 'public, max-age=2592000, immutable',
          Vary: 'Accept',
          'Surrogate-Key': `img-${image[1]} image-api`,
          'Cache-Tag': `img-${image[1]},image-api`,
        });
      }
      res.writeHead(200, headers).end(`${name} ${req.method} ${url} accept=${h('accept')}`);
    });
  });
  standIn.listen = () => new Promise<void>((resolve) => server.listen(standIn.port, '127.0.0.1', resolve));
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  await standIn.listen();
  standIn.port = (server.address() as AddressInfo).port;
  return standIn;
}

/** A stand-in radosgw: `/images/<key>` 200 with no caching headers (as S3 answers), a missing key 403 (an anonymous reader). */
async function startBucket(): Promise<StandIn> {
  const bucket: StandIn = { name: 'bucket', port: 0, seen: [], health: 204, close: async () => undefined, listen: async () => undefined };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const h = (header: string) => String(req.headers[header] ?? '-');
    bucket.seen.push({ method: req.method ?? '', url, host: h('host'), accept: h('accept'), xff: h('x-forwarded-for'), cookie: h('cookie'), authorization: h('authorization'), bytes: 0 });
    if (url.startsWith('/images/missing')) res.writeHead(403, { 'Content-Type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
    else res.writeHead(200, { 'Content-Type': 'image/png', ETag: '"abc"' }).end(`object ${url} #${bucket.seen.length}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bucket.port = (server.address() as AddressInfo).port;
  bucket.close = () => new Promise((resolve) => server.close(() => resolve()));
  return bucket;
}

let dir: string;
let one: StandIn;
let two: StandIn;
let bucket: StandIn;
let varnish: Varnish;
let bucketHost: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-varnish-'));
  one = await startStandIn('one', true);
  two = await startStandIn('two');
  bucket = await startBucket();
  const [port, bucketPort] = [await freePort(), await freePort()];
  bucketHost = `127.0.0.1:${bucketPort}`;
  varnish = await startVarnish(dir, () => undefined, [one.port, two.port], { port, bucketPort, bucket: { port: bucket.port } });
}, 60_000);

afterAll(async () => {
  for (const pid of [varnish?.logPid, varnish?.pid]) {
    if (!pid) continue;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      continue; // gone already
    }
    for (let waited = 0; waited < 10_000; waited += 100) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await Promise.all([one, two, bucket].map((standIn) => standIn?.close()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** A client's request through the front (from 127.0.0.2: not an instance). */
const front = (pathname: string, options: Parameters<typeof request>[1] = {}) => request(`${varnish.url}${pathname}`, { from: '127.0.0.2', timeoutMs: 10_000, ...options });
const purge = (pathname: string, headers: Record<string, string>, from = '127.0.0.1') => request(`${varnish.url}${pathname}`, { method: 'PURGE', headers, from, timeoutMs: 10_000 });
const seenAt = (standIn: StandIn, url: string) => standIn.seen.filter((s) => s.url === url);
const seenAnywhere = (url: string) => [...seenAt(one, url), ...seenAt(two, url)];
const status = (answer: Answer) => [answer.status, answer.headers['x-cache-status']];

/** The access log's lines from line `skip` on, once `count` are there (varnishncsa writes a line after its answer went). */
async function logLines(skip: number, count: number): Promise<string[][]> {
  for (let waited = 0; ; waited += 20) {
    const lines = fs.readFileSync(varnish.accessLog, 'utf8').split('\n').filter(Boolean).slice(skip);
    if (lines.length >= count || waited > 5000) return lines.map((line) => line.split(' '));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const logged = () => fs.readFileSync(varnish.accessLog, 'utf8').split('\n').filter(Boolean).length;

describe('the front: balancer and cache', () => {
  test('an image answer is kept: MISS, then HIT without reaching an instance; its tags never reach the client; the log names who answered', async () => {
    const skip = logged();
    const first = await front('/img/a/small');
    expect(status(first)).toEqual([200, 'MISS']);
    const again = await front('/img/a/small');
    expect(status(again)).toEqual([200, 'HIT']);
    expect(again.text).toBe(first.text);
    expect(seenAnywhere('/img/a/small')).toHaveLength(1);
    for (const header of ['surrogate-key', 'cache-tag', 'xkey', 'x-upstream']) expect([header, first.headers[header], again.headers[header]]).toEqual([header, undefined, undefined]);
    expect(first.headers['cache-control']).toBe('public, max-age=2592000, immutable');
    const lines = await logLines(skip, 2);
    // client "METHOD path protocol" status cache-status upstream microseconds
    const upstream = first.text.startsWith('one ') ? 'instance_1' : 'instance_2';
    expect(lines.map((fields) => fields.slice(0, 7))).toEqual([
      ['127.0.0.2', '"GET', '/img/a/small', 'HTTP/1.1"', '200', 'MISS', upstream],
      ['127.0.0.2', '"GET', '/img/a/small', 'HTTP/1.1"', '200', 'HIT', '-'],
    ]);
    expect(lines.every((fields) => /^\d+$/.test(fields[7]))).toBe(true);
  });

  test('Accept is cut to what negotiation reads: four classes, q=0 and case as the app reads them; one variant each', async () => {
    const classes: Array<[string | undefined, string]> = [
      ['image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8', 'image/avif,image/webp,*/*'],
      ['IMAGE/AVIF;q=0.9, Image/WebP', 'image/avif,image/webp,*/*'],
      ['image/avif,*/*', 'image/avif,*/*'],
      ['image/webp,*/*', 'image/webp,*/*'],
      ['image/avif;q=0,image/webp,*/*', 'image/webp,*/*'],
      ['image/avif; q=0.0, image/webp;q=0', '*/*'],
      ['image/png,*/*', '*/*'],
      ['image/avifx,image/webpx', '*/*'],
      [undefined, '*/*'],
    ];
    for (const [accept, expected] of classes) {
      const answer = await front('/img/b/small', { headers: accept === undefined ? {} : { Accept: accept } });
      expect([accept, answer.status, answer.text.replace(/^\S+ /, '')]).toEqual([accept, 200, `GET /img/b/small accept=${expected}`]);
    }
    // Four variants fetched, the other five requests answered by the cache.
    expect(seenAnywhere('/img/b/small').map((s) => s.accept).sort()).toEqual(['*/*', 'image/avif,*/*', 'image/avif,image/webp,*/*', 'image/webp,*/*']);
  });

  test("on an image path a session's headers are dropped (the answers are public); elsewhere they pass, bodies and all, never cached", async () => {
    const headers = { Cookie: 'jwtToken=secret', Authorization: 'Bearer secret' };
    expect((await front('/img/c/small', { headers })).status).toBe(200);
    expect(seenAnywhere('/img/c/small').map((s) => [s.cookie, s.authorization])).toEqual([['-', '-']]);
    for (let i = 0; i < 2; i++) {
      const answer = await front('/admin/users', { headers });
      expect(status(answer)).toEqual([200, 'PASS']);
    }
    expect(seenAnywhere('/admin/users').map((s) => [s.cookie, s.authorization])).toEqual(Array(2).fill(['jwtToken=secret', 'Bearer secret']));
    const posted = await front('/api/1/upload', { method: 'POST', body: Buffer.alloc(256 * 1024, 1), headers: { 'Content-Type': 'application/octet-stream' } });
    expect(status(posted)).toEqual([200, 'PASS']);
  });

  test("X-Forwarded-For is the client's address, whatever the client sent (set, not appended)", async () => {
    await front('/image/xff', { headers: { 'X-Forwarded-For': '10.9.9.9' }, from: '127.0.0.3' });
    expect(seenAnywhere('/image/xff').map((s) => s.xff)).toEqual(['127.0.0.3']);
  });

  test('a no-store 404 is not kept: each request reaches an instance', async () => {
    for (let i = 0; i < 2; i++) expect(status(await front('/img/gone'))).toEqual([404, 'MISS']);
    expect(seenAnywhere('/img/gone')).toHaveLength(2);
  });

  test('an answer is not served past its max-age (no grace): an expiring image is a 404 once it has expired', async () => {
    expiresAt = Date.now() + 1000;
    expect(status(await front('/img/expiring'))).toEqual([200, 'MISS']);
    expect(status(await front('/img/expiring'))).toEqual([200, 'HIT']);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));
    expect(status(await front('/img/expiring'))).toEqual([404, 'MISS']);
  });

  test('a GET whose instance drops the connection, or answers 503, is answered by the other; a POST there is a 502, never replayed', async () => {
    for (let i = 0; i < 4; i++) {
      const get = await front(`/fail/get-${i}`);
      expect([i, get.status, get.text.split(' ')[0]]).toEqual([i, 200, 'two']);
      const busy = await front(`/busy/get-${i}`);
      expect([i, busy.status, busy.text.split(' ')[0]]).toEqual([i, 200, 'two']);
    }
    const posts: number[] = [];
    for (let i = 0; i < 4; i++) posts.push((await front(`/fail/post-${i}`, { method: 'POST', body: 'x' })).status);
    // Round robin: about half went to the failing instance.
    expect(posts.filter((s) => s === 502).length).toBeGreaterThan(0);
    expect(posts.every((s) => s === 200 || s === 502)).toBe(true);
    for (let i = 0; i < 4; i++) expect(seenAnywhere(`/fail/post-${i}`)).toHaveLength(1);
  });

  test('an instance gone, before its health check takes it out: a request with a body goes whole to the other (none of it had left); one without a body is a 502', async () => {
    await one.close();
    try {
      const body = Buffer.alloc(100_000, 7);
      for (let i = 0; i < 4; i++) {
        // Content-Length, then chunked (a body in parts, no length).
        const sent = await front(`/api/1/upload?gone=${i}`, { method: 'POST', body: i % 2 ? [body.subarray(0, 50_000), body.subarray(50_000)] : body, headers: i % 2 ? {} : { 'Content-Length': body.length } });
        expect([i, sent.status, sent.text.split(' ')[0]]).toEqual([i, 200, 'two']);
        expect(seenAt(two, `/api/1/upload?gone=${i}`).map((s) => s.bytes)).toEqual([body.length]);
      }
      const bodiless: number[] = [];
      for (let i = 0; i < 4; i++) bodiless.push((await front(`/image/x/delete?gone=${i}`, { method: 'POST' })).status);
      // Round robin: the gone instance's turns are 502s (it might have acted on them).
      expect(bodiless.filter((s) => s === 502).length).toBeGreaterThan(0);
      expect(bodiless.every((s) => s === 200 || s === 502)).toBe(true);
    } finally {
      await one.listen();
    }
    // Back before its health check took it out: it has its share again once Varnish's hold-off
    // after a refused connection (backend_remote_error_holddown, 0.25 s) has passed.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let i = 0; i < 4; i++) expect((await front(`/image/returned-${i}`)).status).toBe(200);
    expect(one.seen.filter((s) => s.url.startsWith('/image/returned-')).length).toBe(2);
  });

  test('an instance whose /_health answers 503 (draining) gets nothing within its health check (3 s); back at 204, it takes its share again', async () => {
    one.health = 503;
    try {
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const before = one.seen.length;
      for (let i = 0; i < 6; i++) expect((await front(`/image/drain-${i}`)).status).toBe(200);
      expect(one.seen.length).toBe(before);
    } finally {
      one.health = 204;
    }
    await new Promise((resolve) => setTimeout(resolve, 3500));
    for (let i = 0; i < 6; i++) expect((await front(`/image/back-${i}`)).status).toBe(200);
    expect(one.seen.filter((s) => s.url.startsWith('/image/back-')).length).toBeGreaterThan(0);
  });
});

describe('the bucket listener: the bucket through its CDN', () => {
  test('an object is kept a day though S3 says nothing of caching; a missing one is a 404, not kept; only GET and HEAD', async () => {
    const url = `${varnish.bucketUrl}/images/kept.png`;
    expect(status(await request(url))).toEqual([200, 'MISS']);
    // Under any Host it is one object (the one S3_BASE_URL names, which purges name).
    expect(status(await request(url, { headers: { Host: `localhost:${bucketHost.split(':')[1]}` } }))).toEqual([200, 'HIT']);
    expect(seenAt(bucket, '/images/kept.png').map((s) => s.host)).toEqual([bucketHost]);
    for (let i = 0; i < 2; i++) expect(status(await request(`${varnish.bucketUrl}/images/missing.png`))).toEqual([404, 'MISS']);
    expect(seenAt(bucket, '/images/missing.png')).toHaveLength(2);
    expect((await request(url, { method: 'PUT', body: 'x' })).status).toBe(405);
  });
});

describe('purges', () => {
  test('by tag (PURGE / with xkey-purge) from an instance: every variant of that image fetched again, others still kept', async () => {
    for (const accept of ['image/webp', 'image/png']) {
      await front('/img/d/small', { headers: { Accept: accept } });
      expect(status(await front('/img/d/small', { headers: { Accept: accept } }))).toEqual([200, 'HIT']);
    }
    await front('/img/e/small');
    expect((await purge('/', { 'xkey-purge': 'img-d' })).status).toBe(200);
    for (const accept of ['image/webp', 'image/png']) expect(status(await front('/img/d/small', { headers: { Accept: accept } }))).toEqual([200, 'MISS']);
    expect(status(await front('/img/e/small'))).toEqual([200, 'HIT']);
  });

  test("by URL at the front listener, Host naming the bucket listener: the bucket's object is fetched again", async () => {
    const url = `${varnish.bucketUrl}/images/purged.png`;
    await request(url);
    expect(status(await request(url))).toEqual([200, 'HIT']);
    // As the service sends it (purge/varnish-purger.ts): to IMAGE_API_PURGE_VARNISH, the front.
    expect((await purge('/images/purged.png', { Host: bucketHost })).status).toBe(200);
    expect(status(await request(url))).toEqual([200, 'MISS']);
    expect(seenAt(bucket, '/images/purged.png')).toHaveLength(2);
  });

  test('only the instances (127.0.0.1) may purge: 403 from another address, and nothing is forgotten', async () => {
    await front('/img/f/small');
    await request(`${varnish.bucketUrl}/images/f.png`);
    expect((await purge('/', { 'xkey-purge': 'img-f image-api' }, '127.0.0.2')).status).toBe(403);
    expect((await purge('/images/f.png', { Host: bucketHost }, '127.0.0.2')).status).toBe(403);
    expect((await purge('/img/f/small', {}, '127.0.0.2')).status).toBe(403);
    expect(status(await front('/img/f/small'))).toEqual([200, 'HIT']);
    expect(status(await request(`${varnish.bucketUrl}/images/f.png`))).toEqual([200, 'HIT']);
  });
});
