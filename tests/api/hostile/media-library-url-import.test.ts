/**
 * The Media Library's "import from URL" (`POST /upload/actions/upload-from-urls`, which an Author
 * may call) follows the URL sources' address policy (docs/security.md, "Threat model"). Strapi 5.54's
 * own check let an Author have the server fetch `http://0.0.0.0:<port>/...` (loopback on Linux),
 * CGNAT and anything a redirect pointed at, store what answered, and read from its messages which
 * internal ports were open ("fetch failed", "(404 Not Found)", "type not allowed").
 *
 * Here the allow-list names 127.0.0.2, the stand-in for a public host (tests reach loopback only);
 * `internal` on 127.0.0.1 stands for a service on the server's own loopback. Every other spelling of
 * a loopback, private, link-local, CGNAT, reserved or IPv6 address, a name that resolves to loopback
 * (`localhost`, through /etc/hosts: no outside resolver), and a redirect from the allowed host to any
 * of them is refused with one message, before any connection: `internal` sees no request, and no row,
 * stored file or temp file is left. Imports from the allowed host work as before. DNS rebinding (a
 * name that resolves elsewhere the second time) needs a resolver of the test's own:
 * plugins/image-api/tests/sources/media-library-import.test.ts.
 */
import fs from 'fs';
import http from 'http';
import os from 'os';
import path from 'path';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server';
import { jpeg } from '../../helpers/fixtures';
import { listening } from '../../helpers/raw-path';

const REFUSED = 'Cannot import from this URL: its host is unknown or not one this server may fetch from';
const FAILED = 'Could not fetch this URL';

// Strapi's import writes under os.tmpdir(), which reads TMPDIR: a folder of this file's own, so that
// "no temp file left" counts this file's requests only.
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-url-import-'));
const app = useApp({ IMAGE_API_URL_ALLOWLIST: '127.0.0.2', TMPDIR: TMP });

let allowed: FixtureServer;
let internal: FixtureServer;
let author: string;
let photo: Buffer;
let secret: Buffer;

beforeAll(async () => {
  allowed = await startFixtureServer('127.0.0.2');
  internal = await startFixtureServer('127.0.0.1');
  photo = await jpeg(120, 80);
  secret = await jpeg(64, 48);
  allowed.add('photo.jpg', photo, 'image/jpeg');
  internal.add('secret.jpg', secret, 'image/jpeg');
  author = `Bearer ${await adminToken(app, 'author@img.test', 'Author-pass-1234', 'strapi-author')}`;
});
afterAll(async () => {
  await allowed?.close();
  await internal?.close();
  app?.strapi.server.httpServer.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

interface SseEvent {
  event: string;
  data: Record<string, any>;
}

/** The Server-Sent Events of an answer, in order. */
function parseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? '',
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Record<string, any>,
    }));
}

/** The Author's import of `urls`, as the Media Library's dialog sends it. */
async function importUrls(urls: string[]) {
  const res = await app.http
    .post('/upload/actions/upload-from-urls')
    .set('Authorization', author)
    .send({ urls })
    .buffer(true)
    .parse((stream, done) => {
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (text += chunk));
      stream.on('end', () => done(null, text));
    });
  return { status: res.status, type: res.headers['content-type'] as string, events: parseEvents(res.body as string) };
}

/** What the Media Library and the temp folder hold: rows, stored files, temp files. */
async function holdings() {
  return {
    rows: await app.strapi.db.query('plugin::upload.file').count(),
    stored: fs.readdirSync(app.uploadsDir).sort(),
    temp: fs.readdirSync(TMP, { recursive: true }).map(String).sort(),
  };
}

/** Resolves once TMP holds no more than `entries` entries again (a request's temp folder went). */
function tempFolderGone(entries: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (fs.readdirSync(TMP).length > entries) return;
      watcher.close();
      resolve();
    };
    const watcher = fs.watch(TMP, check);
    check();
  });
}

/** Asserts one refused URL: the one message, nothing fetched from `internal`, nothing kept. */
async function expectRefused(url: string, message = REFUSED) {
  const before = await holdings();
  const seen = internal.requests.length;
  const res = await importUrls([url]);
  expect(res.status).toBe(200);
  expect(res.type).toBe('text/event-stream');
  expect(res.events).toEqual([
    { event: 'file:fetching', data: { url, index: 0, total: 1 } },
    { event: 'file:error', data: { url, index: 0, message } },
    { event: 'stream:complete', data: { data: [], errors: [{ name: url, message }] } },
  ]);
  expect(internal.requests.slice(seen)).toEqual([]);
  expect(await holdings()).toEqual(before);
}

describe('an Author cannot make the server fetch a non-public address', () => {
  const p = () => new URL(internal.url('/')).port;
  // The loopback service, however its address is spelled (what the URL parser makes of it is what is checked).
  test.each([
    ['0.0.0.0', () => `http://0.0.0.0:${p()}/img/secret.jpg`],
    ['0', () => `http://0:${p()}/img/secret.jpg`],
    ['127.0.0.1', () => `http://127.0.0.1:${p()}/img/secret.jpg`],
    ['127.1', () => `http://127.1:${p()}/img/secret.jpg`],
    ['127.0.1', () => `http://127.0.1:${p()}/img/secret.jpg`],
    ['0x7f.1', () => `http://0x7f.1:${p()}/img/secret.jpg`],
    ['0x7f000001', () => `http://0x7f000001:${p()}/img/secret.jpg`],
    ['0177.0.0.1', () => `http://0177.0.0.1:${p()}/img/secret.jpg`],
    ['017700000001', () => `http://017700000001:${p()}/img/secret.jpg`],
    ['2130706433', () => `http://2130706433:${p()}/img/secret.jpg`],
    ['127.255.255.254', () => `http://127.255.255.254:${p()}/img/secret.jpg`],
    ['[::1]', () => `http://[::1]:${p()}/img/secret.jpg`],
    ['[::]', () => `http://[::]:${p()}/img/secret.jpg`],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${p()}/img/secret.jpg`],
    ['[::ffff:7f00:1]', () => `http://[::ffff:7f00:1]:${p()}/img/secret.jpg`],
    ['[0:0:0:0:0:ffff:127.0.0.1]', () => `http://[0:0:0:0:0:ffff:127.0.0.1]:${p()}/img/secret.jpg`],
    ['[::ffff:0.0.0.0]', () => `http://[::ffff:0.0.0.0]:${p()}/img/secret.jpg`],
    ['[::127.0.0.1] (IPv4-compatible)', () => `http://[::127.0.0.1]:${p()}/img/secret.jpg`],
    ['localhost (resolves to loopback)', () => `http://localhost:${p()}/img/secret.jpg`],
    ['LOCALHOST, upper-case scheme', () => `HTTP://LOCALHOST:${p()}/img/secret.jpg`],
    ['https://localhost', () => `https://localhost:${p()}/img/secret.jpg`],
    ['credentials before 0.0.0.0', () => `http://user:pass@0.0.0.0:${p()}/img/secret.jpg`],
    ['a status of the internal server', () => `http://0.0.0.0:${p()}/status/404`],
    ['a closed loopback port', () => 'http://0.0.0.0:1/'],
    ['PostgreSQL on loopback', () => 'http://0.0.0.0:5432/'],
  ])('loopback: %s', async (_label, url) => {
    await expectRefused(url());
  });

  // Never connected: refused on the address alone.
  test.each([
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://100.127.255.254/',
    'http://0.1.2.3/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://240.0.0.1/',
    'http://198.18.0.1/',
    'http://192.0.0.8/',
    'http://192.0.2.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::ffff:100.64.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001::1]/',
  ])('%s', async (url) => {
    await expectRefused(url);
  });

  test.each([
    ['127.0.0.1', () => internal.url('/img/secret.jpg')],
    ['0.0.0.0', () => `http://0.0.0.0:${p()}/img/secret.jpg`],
    ['localhost', () => `http://localhost:${p()}/img/secret.jpg`],
    ['[::ffff:7f00:1]', () => `http://[::ffff:7f00:1]:${p()}/img/secret.jpg`],
    ['the metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
    ['the allowed host, then the internal one', () => allowed.url(`/goto?to=${encodeURIComponent(`http://0.0.0.0:${p()}/img/secret.jpg`)}`)],
  ])('a redirect from the allowed host to %s is checked again', async (_label, target) => {
    const seen = allowed.requests.length;
    await expectRefused(allowed.url(`/goto?to=${encodeURIComponent(target())}`));
    expect(allowed.requests.length).toBeGreaterThan(seen);
  });

  test('a URL that is not http(s), as given or after a redirect, is refused as such', async () => {
    const invalid = 'Invalid URL: only http:// and https:// URLs can be imported';
    await expectRefused('file:///etc/passwd', invalid);
    await expectRefused('gopher://127.0.0.1:5432/', invalid);
    await expectRefused(allowed.url(`/goto?to=${encodeURIComponent('file:///etc/passwd')}`), invalid);
  });
});

describe('imports from an allowed host', () => {
  test('are stored, with Strapi\'s events, name and type, and leave no temp file', async () => {
    const before = await holdings();
    const url = allowed.url('/img/photo.jpg');
    const res = await importUrls([url]);
    expect(res.status).toBe(200);
    const names = res.events.map((e) => e.event);
    expect(names[0]).toBe('file:fetching');
    expect(names.slice(-3)).toEqual(['file:uploading', 'file:complete', 'stream:complete']);
    // Progress: the length announced first, the last frame at the total.
    const progress = res.events.filter((e) => e.event === 'file:progress').map((e) => e.data);
    expect(progress[0]).toEqual({ index: 0, loadedBytes: 0, totalBytes: photo.length, phase: 'fetch' });
    expect(progress.at(-1)).toEqual({ index: 0, loadedBytes: photo.length, totalBytes: photo.length, phase: 'fetch' });
    expect(res.events.at(-3)!.data).toEqual({ name: 'photo.jpg', index: 0, total: 1, size: photo.length });
    const { file } = res.events.at(-2)!.data;
    expect(file).toMatchObject({ name: 'photo.jpg', mime: 'image/jpeg', ext: '.jpg', width: 120, height: 80 });
    expect(res.events.at(-1)!.data).toEqual({ data: [expect.objectContaining({ id: file.id, name: 'photo.jpg' })], errors: [] });

    const stored = path.join(app.uploadsDir, path.basename(file.url));
    expect(await sharp(stored).metadata()).toMatchObject({ format: 'jpeg', width: 120, height: 80 });
    const after = await holdings();
    expect(after.rows).toBe(before.rows + 1);
    expect(after.temp).toEqual(before.temp);
  });

  test('through redirects of the allowed host (at most 5), named after the last URL', async () => {
    const res = await importUrls([allowed.url('/redirect/5/photo.jpg'), allowed.url('/redirect/6/photo.jpg')]);
    const complete = res.events.find((e) => e.event === 'file:complete');
    expect(complete?.data).toMatchObject({ name: 'photo.jpg', index: 0 });
    expect(res.events.find((e) => e.event === 'file:error')?.data).toEqual({ url: allowed.url('/redirect/6/photo.jpg'), index: 1, message: FAILED });
  });

  test('a failure tells no status: 404, 500 and a closed port read alike', async () => {
    for (const url of [allowed.url('/status/404'), allowed.url('/status/500'), 'http://127.0.0.2:1/photo.jpg']) {
      const before = await holdings();
      const res = await importUrls([url]);
      expect(res.events[1]).toEqual({ event: 'file:error', data: { url, index: 0, message: FAILED } });
      expect(await holdings()).toEqual(before);
    }
  });

  test('Strapi\'s size limit holds on the bytes received, and the partial file goes', async () => {
    app.strapi.config.set('plugin::upload.sizeLimit', 100_000);
    try {
      const before = await holdings();
      const url = allowed.url('/stream/300000');
      const res = await importUrls([url]);
      expect(res.events.find((e) => e.event === 'file:error')?.data).toEqual({ url, index: 0, message: 'File too large: maximum allowed size is 100 KB' });
      expect(await holdings()).toEqual(before);
    } finally {
      app.strapi.config.set('plugin::upload.sizeLimit', 1_000_000_000);
    }
  });
});

test('a client that closes the request stops its download, and its later URLs are not fetched', async () => {
  const port = await listening(app.strapi.server.httpServer);
  const before = await holdings();
  const seen = allowed.requests.length;
  const body = JSON.stringify({ urls: [allowed.url('/slow'), allowed.url('/img/photo.jpg')] });
  await new Promise<void>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, method: 'POST', path: '/upload/actions/upload-from-urls', agent: false,
      headers: { authorization: author, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        // The slow answer's headers came: the download is under way. The client goes.
        if (text.includes('event: file:progress')) {
          req.destroy();
          resolve();
        }
      });
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end(body);
  });
  // The server drops its connection to the slow host (Strapi's own fetch would hold it 60 s)...
  await allowed.idle();
  // ...and ends the request: its temp folder goes last.
  await tempFolderGone(before.temp.filter((entry) => !entry.includes(path.sep)).length);
  expect(allowed.requests.slice(seen).map((r) => r.line)).toEqual(['GET /slow']);
  expect(await holdings()).toEqual(before);
});
