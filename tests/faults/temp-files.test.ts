/**
 * Multipart bodies and the disk (issue 34, item 2; docs/security.md, "Nothing left behind"). The app
 * runs as a process with a TMPDIR of its own, where Strapi's body parser (formidable) writes unless
 * told otherwise. Bodies of three files (5, 10 and 20 MB) sent without credentials to paths that do
 * not read them, whole or cut short mid-body, are answered without a byte reaching the disk; the
 * Media Library's upload (a route that reads them) stores its file, and an upload cut short, or over
 * formidable's 200 MB limit, leaves nothing. Once answered, the temp folder and the plugin's temp
 * root hold nothing. The answers themselves: tests/api/hostile/where-bodies-are-read.test.ts.
 */
import fs from 'fs';
import http from 'http';
import os from 'os';
import path from 'path';
import { startFaultApp, type FaultApp } from './helpers/fault-app';
import { rssMb, sampleRss, sleep } from './helpers/load';
import { request } from '../../tools/support/http/http-client';
import { createScratchDb, type ScratchDb } from '../../tools/support/app/scratch-db';
import { jpeg } from '../helpers/fixtures';

const MB = 1024 * 1024;
const BOUNDARY = 'tempFilesBoundary';
let db: ScratchDb;
let tmpdir: string;
let app: FaultApp;
let admin: Record<string, string>;

beforeAll(async () => {
  db = await createScratchDb('sqlite');
  tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-faults-tmpdir-'));
  app = await startFaultApp({ ...db.env, TMPDIR: tmpdir });
  const json = { 'Content-Type': 'application/json' };
  const registered = await request(`${app.url}/admin/register-admin`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: 'ops@img.test', password: 'Admin-pass-1234', firstname: 'Ops', lastname: 'Team' }),
  });
  expect(registered.status).toBe(200);
  admin = { Authorization: `Bearer ${registered.json.data.token}` };
}, 120_000);
afterAll(async () => {
  await app?.destroy();
  await db?.drop();
  if (tmpdir) fs.rmSync(tmpdir, { recursive: true, force: true });
});

/** Bytes and entries under the app's temp folder and the plugin's temp root. */
function onDisk(): { bytes: number; entries: string[] } {
  let bytes = 0;
  const entries: string[] = [];
  for (const root of [tmpdir, app.tmpDir]) {
    if (!fs.existsSync(root)) continue;
    for (const entry of fs.readdirSync(root, { recursive: true })) {
      const full = path.join(root, String(entry));
      entries.push(full);
      const stat = fs.statSync(full, { throwIfNoEntry: false });
      if (stat?.isFile()) bytes += stat.size;
    }
  }
  return { bytes, entries };
}

/** Reads onDisk() every 10 ms until stopped; the most bytes seen. */
function watchDisk() {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, onDisk().bytes)), 10);
  return () => {
    clearInterval(timer);
    return Math.max(peak, onDisk().bytes);
  };
}

/** What is left once the app has had `withinMs` to finish a request a client abandoned. */
async function leftAfter(withinMs: number) {
  const until = Date.now() + withinMs;
  while (onDisk().entries.length > 0 && Date.now() < until) await sleep(50);
  return onDisk();
}

/** The parts of a multipart body of files of `sizes` (bytes), as slices of one buffer. */
function filesBody(sizes: number[]): Buffer[] {
  const bytes = Buffer.alloc(Math.max(...sizes), 0x5a);
  return [
    ...sizes.flatMap((size, i) => [
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="part${i}"; filename="part${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      bytes.subarray(0, size),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ];
}

const multipartHeaders = (body: Buffer[]) => ({
  'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
  'Content-Length': body.reduce((n, part) => n + part.length, 0),
});

/** Sends the first `cutAt` bytes of `body` and then drops the connection, as a client that gives up. */
function sendCutShort(requestPath: string, headers: Record<string, string>, body: Buffer[], cutAt: number) {
  return new Promise<void>((resolve) => {
    const req = http.request(`${app.url}${requestPath}`, { method: 'POST', headers: { ...headers, ...multipartHeaders(body) }, agent: false });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    (async () => {
      let sent = 0;
      for (const part of body) {
        const piece = part.subarray(0, Math.max(0, cutAt - sent));
        for (let at = 0; at < piece.length && !req.destroyed; at += MB) await new Promise((r) => req.write(piece.subarray(at, at + MB), r));
        sent += piece.length;
        if (sent >= cutAt) break;
      }
      // Long enough for the server to take in what was sent.
      await sleep(300);
      req.destroy();
    })();
  });
}

const THREE_FILES = [5, 10, 20].map((n) => n * MB);

test('three files (5, 10, 20 MB) to paths that do not read them, whole or cut short after 12 MB, no credentials: answered, not a byte on disk, nothing left', async () => {
  const body = filesBody(THREE_FILES);
  const expected: Array<[string, number]> = [
    ['/', 405],
    ['/admin/login', 400],
    ['/api/nothing', 405],
    ['/upload', 401],
    ['/upload/files', 401],
    ['/admin/project-settings', 401],
    ['/api/upload', 403],
    // The upload API's own paths read bodies in memory, up to their cap: this one is over it.
    ['/api/1/upload', 413],
    ['/API/1/UPLOAD', 413],
    ['/1/UPLOAD', 413],
  ];
  const idle = rssMb(app.pid());
  const stopRss = sampleRss(app.pid());
  const stopDisk = watchDisk();
  const answers: string[] = [];
  for (const [requestPath] of expected) {
    const res = await request(`${app.url}${requestPath}`, { method: 'POST', headers: multipartHeaders(body), body, timeoutMs: 30_000 });
    answers.push(`${requestPath} ${res.status} in ${res.ms} ms`);
    await sendCutShort(requestPath, {}, body, 12 * MB);
  }
  const peakRss = stopRss();
  const peakDisk = stopDisk();
  const left = await leftAfter(5000);
  console.log(
    `35 MB bodies, whole and cut short, to paths that do not read them: ${answers.join(', ')}; ` +
      `most on disk at once ${peakDisk} bytes, left ${left.bytes} bytes in ${left.entries.length} entries; RSS ${idle.toFixed(0)} MB before, peak ${peakRss.toFixed(0)} MB`
  );
  expect(answers.map((answer) => answer.replace(/ in \d+ ms$/, ''))).toEqual(expected.map(([requestPath, status]) => `${requestPath} ${status}`));
  expect(peakDisk).toBe(0);
  expect(left.entries).toEqual([]);
  // Not held in memory either: read and dropped as it arrives, if read at all.
  expect(peakRss - idle).toBeLessThan(100);
});

test('the Media Library upload (a route that reads multipart): stored, and nothing left; cut short mid-body, or over formidable\'s 200 MB limit: nothing left', async () => {
  const photo = await jpeg(800, 600);
  const upload = [
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="fileInfo"\r\n\r\n${JSON.stringify({ name: 'photo.jpg' })}\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    photo,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ];
  const stored = await request(`${app.url}/upload`, { method: 'POST', headers: { ...admin, ...multipartHeaders(upload) }, body: upload, timeoutMs: 30_000 });
  expect(stored.status).toBe(201);
  const [file] = stored.json;
  expect(file).toMatchObject({ name: 'photo.jpg', mime: 'image/jpeg', width: 800, height: 600 });
  // The original (re-encoded by the Media Library's size optimisation) and its formats, as served.
  const storedNames = [file.url, ...Object.values(file.formats as Record<string, { url: string }>).map((format) => format.url)].map((url) => path.basename(url));
  for (const name of storedNames) expect(fs.readFileSync(path.join(app.uploadsDir, name)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  expect(onDisk().entries).toEqual([]);

  // Cut short after 12 MB of three files: formidable has written them into the request's folder.
  let stopDisk = watchDisk();
  await sendCutShort('/upload', admin, filesBody(THREE_FILES), 12 * MB);
  const cutPeak = stopDisk();
  const cutLeft = await leftAfter(5000);

  // 210 MB in one file: formidable stops at 200 MB (Strapi's default maxFileSize) with a 413.
  const huge = Buffer.alloc(MB, 0x5a);
  const overBody = [
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="huge.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    ...Array.from({ length: 210 }, () => huge),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ];
  stopDisk = watchDisk();
  const over = await request(`${app.url}/upload`, { method: 'POST', headers: { ...admin, ...multipartHeaders(overBody) }, body: overBody, timeoutMs: 60_000 });
  const overPeak = stopDisk();
  const overLeft = await leftAfter(5000);
  console.log(
    `Media Library upload: stored; cut short after 12 MB: ${cutPeak} bytes on disk at most, ${cutLeft.bytes} left; ` +
      `210 MB: ${over.status} in ${over.ms} ms, ${overPeak} bytes on disk at most, ${overLeft.bytes} left in ${overLeft.entries.length} entries`
  );
  expect(cutLeft.entries).toEqual([]);
  expect(over.status).toBe(413);
  expect(over.json).toEqual({ data: null, error: { status: 413, name: 'PayloadTooLargeError', message: 'FileTooBig', details: {} } });
  expect(overLeft.entries).toEqual([]);
  // Only what was stored is in the uploads folder.
  expect(fs.readdirSync(app.uploadsDir).sort()).toEqual(storedNames.sort());
});
