/**
 * The Varnish purger: against loopback stand-ins that check the purge protocol (tags: `PURGE /` with
 * `xkey-purge`; URLs: `PURGE <path>` with the URL's `Host`), and against a real varnishd (Debian's
 * varnish and varnish-modules) whose VCL purges by xkey and by URL, in front of a tiny origin: what
 * was cached is fetched from the origin again once purged, and nothing else is.
 */
import { spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import http from 'http';
import os from 'os';
import path from 'path';
import type { AddressInfo } from 'net';
import { createVarnishPurger, VARNISH_XKEY_HEADER_BYTES } from '../../server/src/purge/varnish-purger';
import { freePort, waitForPort } from '../../../../tools/support/servers/ports';
import { startStandIn, timed, type StandIn } from './stand-in';

describe('against stand-ins', () => {
  let one: StandIn;
  let two: StandIn;
  beforeEach(async () => {
    one = await startStandIn(() => ({ status: 200, text: 'purged' }));
    two = await startStandIn(() => ({ status: 200, text: 'purged' }));
  });
  afterEach(() => Promise.all([one.close(), two.close()]));

  const purger = (timeoutMs = 15_000) => createVarnishPurger({ servers: [one.url, `${two.url}/`], timeoutMs });
  const seen = (server: StandIn) => server.requests.map((request) => `${request.method} ${request.url} host=${request.headers.host} xkey-purge=${request.headers['xkey-purge'] ?? '-'}`);

  test('tags: PURGE / with the tags space-separated in xkey-purge, to every server', async () => {
    await purger().purge({ tags: ['img-abc', 'key-k1', 'img-abc'], urls: [] });
    for (const server of [one, two]) expect(seen(server)).toEqual([`PURGE / host=127.0.0.1:${server.port} xkey-purge=img-abc key-k1`]);
  });

  test("URLs: PURGE <path and query> with the URL's Host and no xkey-purge, to every server", async () => {
    await purger().purge({ tags: [], urls: ['http://img.example.com/uploads/abc.jpg', 'https://img.example.com:8443/i/abc.webp?w=100'] });
    for (const server of [one, two]) {
      expect(seen(server)).toEqual(['PURGE /uploads/abc.jpg host=img.example.com xkey-purge=-', 'PURGE /i/abc.webp?w=100 host=img.example.com:8443 xkey-purge=-']);
    }
  });

  test('a purge of nothing sends nothing; a URL that is not absolute is refused before anything is sent', async () => {
    await purger().purge({ tags: [], urls: [] });
    await expect(purger().purge({ tags: ['img-abc'], urls: ['/uploads/abc.jpg'] })).rejects.toThrow('image-api: varnish purge of the URL "/uploads/abc.jpg" failed: not an absolute URL');
    expect([...one.requests, ...two.requests]).toEqual([]);
  });

  test(`more tags than fit a ${VARNISH_XKEY_HEADER_BYTES}-byte header go in several requests, every tag once`, async () => {
    const tags = Array.from({ length: 400 }, (_, i) => `img-${String(i).padStart(16, '0')}`);
    await purger().purge({ tags, urls: [] });
    const headers = one.requests.map((request) => String(request.headers['xkey-purge']));
    expect(headers.length).toBe(3);
    expect(headers.every((header) => header.length <= VARNISH_XKEY_HEADER_BYTES)).toBe(true);
    expect(headers.join(' ').split(' ')).toEqual(tags);
  });

  test('the servers are told at once: each answers only once both were asked', async () => {
    let asked = 0;
    let release: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (release = resolve));
    const respond = async () => {
      if (++asked === 2) release();
      await both;
      return { status: 200, text: 'purged' };
    };
    one.respond = respond;
    two.respond = respond;
    await expect(purger(1000).purge({ tags: ['img-abc'], urls: [] })).resolves.toBeUndefined();
  });

  test('one server refusing rejects, naming it, after the other was told too', async () => {
    two.respond = () => ({ status: 403, text: 'Forbidden' });
    await expect(purger().purge({ tags: ['img-abc'], urls: [] })).rejects.toThrow(`image-api: varnish purge of tags img-abc at ${two.url} failed: Varnish answered 403`);
    expect(one.requests).toHaveLength(1);
  });

  test('every server failing: one Error naming each', async () => {
    one.respond = () => ({ status: 503, text: 'Backend fetch failed' });
    await two.close();
    await expect(purger().purge({ tags: ['img-abc'], urls: [] })).rejects.toThrow(
      `image-api: varnish purge failed at 2 of 2 servers: varnish purge of tags img-abc at ${one.url} failed: Varnish answered 503; varnish purge of tags img-abc at ${two.url} failed: the request failed (ECONNREFUSED)`,
    );
  });

  test('a server that never answers: rejects after about the timeout, a URL purge too', async () => {
    two.respond = () => 'never';
    const tags = await timed(() => purger(200).purge({ tags: ['img-abc'], urls: [] }));
    expect(tags.error?.message).toBe(`image-api: varnish purge of tags img-abc at ${two.url} failed: no answer within 200 ms`);
    expect(tags.ms).toBeGreaterThanOrEqual(190);
    expect(tags.ms).toBeLessThan(10_000);
    const urls = await timed(() => purger(200).purge({ tags: [], urls: ['http://img.example.com/a.jpg'] }));
    expect(urls.error?.message).toBe(`image-api: varnish purge of the URL http://img.example.com/a.jpg at ${two.url} failed: no answer within 200 ms`);
    expect(urls.ms).toBeLessThan(10_000);
  });

  test('a server that fails three times, then succeeds: three rejections, then the purge resolves', async () => {
    let calls = 0;
    two.respond = () => (++calls <= 3 ? { status: 503, text: 'Service Unavailable' } : { status: 200, text: 'purged' });
    const instance = purger();
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 4; attempt++) outcomes.push(await instance.purge({ tags: ['img-abc'], urls: [] }).then(() => 'resolved', (error: Error) => error.message));
    expect(outcomes).toEqual([...Array(3).fill(`image-api: varnish purge of tags img-abc at ${two.url} failed: Varnish answered 503`), 'resolved']);
  });
});

/**
 * The purge part of a VCL for Varnish with xkey, as proven below: PURGE only from the ACL (the
 * instances; 403 for anyone else), by tags with `xkey-purge`, else by URL (`return (purge)`: the
 * request's URL and Host, every variant); the answer's `Surrogate-Key` becomes the `xkey` header
 * xkey indexes objects by (an origin may also send `xkey` itself).
 */
const purgeVcl = (origin: number) => `vcl 4.1;
import xkey;

backend origin { .host = "127.0.0.1"; .port = "${origin}"; }

acl purgers { "127.0.0.1"; }

sub vcl_recv {
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) { return (synth(403, "Forbidden")); }
    if (req.http.xkey-purge) {
      set req.http.n-gone = xkey.purge(req.http.xkey-purge);
      return (synth(200, "Invalidated " + req.http.n-gone + " objects"));
    }
    return (purge);
  }
}

sub vcl_backend_response {
  if (beresp.http.Surrogate-Key && !beresp.http.xkey) {
    set beresp.http.xkey = beresp.http.Surrogate-Key;
  }
}
`;

describe('against a real varnishd with xkey', () => {
  let dir: string;
  let origin: http.Server;
  let varnishd: ChildProcess;
  let port: number;
  /** What reached the origin, by path. */
  const fetched = new Map<string, number>();

  beforeAll(async () => {
    origin = http.createServer((req, res) => {
      const url = req.url ?? '/';
      const times = (fetched.get(url) ?? 0) + 1;
      fetched.set(url, times);
      const name = path.basename(url, '.jpg');
      // c.jpg names its key the way xkey reads natively; the others as the app does.
      const tags: Record<string, string> = name === 'c' ? { xkey: 'img-c' } : { 'surrogate-key': `img-${name} image-api` };
      res.writeHead(200, { 'content-type': 'image/jpeg', 'cache-control': 'public, max-age=3600', ...tags });
      res.end(`${url} fetched ${times}`);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'purge-varnish-'));
    // varnishd drops to its own users (vcache, varnish): they must reach its working folder.
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'purge.vcl'), purgeVcl((origin.address() as AddressInfo).port));
    port = await freePort();
    const log = fs.openSync(path.join(dir, 'varnishd.log'), 'a');
    varnishd = spawn(
      'varnishd',
      ['-F', '-n', path.join(dir, 'varnishd'), '-a', `127.0.0.1:${port}`, '-T', 'none', '-f', path.join(dir, 'purge.vcl'), '-s', 'malloc,16m', '-p', 'thread_pools=1', '-p', 'thread_pool_min=5', '-p', 'vsl_space=1M'],
      { stdio: ['ignore', log, log] },
    );
    fs.closeSync(log);
    await waitForPort(port, 15000, `varnishd (log: ${path.join(dir, 'varnishd.log')})`);
  });

  afterAll(async () => {
    if (varnishd && varnishd.exitCode === null && varnishd.signalCode === null) {
      const gone = new Promise((resolve) => varnishd.once('exit', resolve));
      varnishd.kill('SIGTERM');
      await gone;
    }
    await new Promise((resolve) => origin?.close(resolve));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A GET through Varnish as a client sends it (with `Host`, which fetch() cannot set), from `from`. */
  const request = (method: string, target: string, { host = 'img.test', from = '127.0.0.2' } = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = http.request({ host: '127.0.0.1', port, method, path: target, headers: { host }, localAddress: from, timeout: 5000 }, (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (body += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${target} timed out`)));
      outgoing.on('error', reject);
      outgoing.end();
    });
  const get = async (target: string) => (await request('GET', target)).body;
  const purger = () => createVarnishPurger({ servers: [`http://127.0.0.1:${port}`], timeoutMs: 15_000 });

  test('cached, then purged by tag: the next GET reaches the origin, other images stay cached', async () => {
    expect(await get('/a.jpg')).toBe('/a.jpg fetched 1');
    expect(await get('/a.jpg')).toBe('/a.jpg fetched 1');
    expect(await get('/b.jpg')).toBe('/b.jpg fetched 1');
    expect(await get('/c.jpg')).toBe('/c.jpg fetched 1');
    expect(fetched).toEqual(new Map([['/a.jpg', 1], ['/b.jpg', 1], ['/c.jpg', 1]]));

    await purger().purge({ tags: ['img-a', 'img-c'], urls: [] });
    expect(await get('/a.jpg')).toBe('/a.jpg fetched 2');
    expect(await get('/c.jpg')).toBe('/c.jpg fetched 2');
    expect(await get('/b.jpg')).toBe('/b.jpg fetched 1');
    expect(await get('/a.jpg')).toBe('/a.jpg fetched 2');
  });

  test('cached, then purged by URL (its Host and path): the next GET reaches the origin', async () => {
    expect(await get('/d.jpg?w=100')).toBe('/d.jpg?w=100 fetched 1');
    expect(await get('/d.jpg?w=100')).toBe('/d.jpg?w=100 fetched 1');
    expect(await get('/e.jpg')).toBe('/e.jpg fetched 1');

    // Another host's URL of the same path is another object: purging it leaves this one cached.
    await purger().purge({ tags: [], urls: ['http://elsewhere.test/d.jpg?w=100'] });
    expect(await get('/d.jpg?w=100')).toBe('/d.jpg?w=100 fetched 1');

    await purger().purge({ tags: [], urls: ['http://img.test/d.jpg?w=100'] });
    expect(await get('/d.jpg?w=100')).toBe('/d.jpg?w=100 fetched 2');
    expect(await get('/e.jpg')).toBe('/e.jpg fetched 1');
  });

  test('a PURGE from outside the ACL is refused with 403 and forgets nothing', async () => {
    expect(await get('/f.jpg')).toBe('/f.jpg fetched 1');
    const refused = await new Promise<number>((resolve, reject) => {
      const outgoing = http.request({ host: '127.0.0.1', port, method: 'PURGE', path: '/', headers: { 'xkey-purge': 'img-f' }, localAddress: '127.0.0.2' }, (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode ?? 0);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(refused).toBe(403);
    expect((await request('PURGE', '/f.jpg', { from: '127.0.0.2' })).status).toBe(403);
    expect(await get('/f.jpg')).toBe('/f.jpg fetched 1');
  });
});
