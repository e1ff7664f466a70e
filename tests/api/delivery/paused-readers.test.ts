/**
 * What a client that stops reading can hold (docs/security.md, "Threat model"): an image answer
 * whose client takes no byte for `sendIdleTimeoutMs` is cut off, and a fresh render's result keeps
 * its render ticket while it is being sent, so the render gate bounds the results waiting for slow
 * readers as it bounds the renders. And two edges of `/uploads/` an attacker's review found: a Range
 * past the end of a Media Library file, and an image's files while its deletion is under way.
 */
import fs from 'fs';
import net from 'net';
import path from 'path';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { listening, requestPath } from '../../helpers/raw-path';

const IDLE_MS = 1000;
/** Past the idle limit, the cut may wait for a loaded machine's event loop; the next timer that could cut is far later (30 s). */
const SLACK_MS = 12_000;
const app = useApp({
  IMAGE_API_SEND_IDLE_TIMEOUT_MS: String(IDLE_MS),
  IMAGE_API_MAX_RENDERS_IN_FLIGHT: '2',
  IMAGE_API_MAX_RENDERS_PER_ADDRESS: '2',
  // Unsigned: every size may be asked for (each is rendered anew).
  IMAGE_API_TRANSFORM_KEY: '',
  IMAGE_API_TRANSFORM_SALT: '',
});

/** A PNG of noise: it compresses to nearly its raw size, more than loopback's socket buffers hold. */
const noisePng = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();

interface Paused {
  socket: net.Socket;
  status: number;
  /** Resolves with the milliseconds from the answer's first byte to the server closing its side. */
  closed: Promise<number>;
}

/** The server's side of each connection, by the client's port: what the server closes is seen there. */
const serverSockets = new Map<number, net.Socket>();

/** Asks for `urlPath` and stops reading at the first bytes of the answer (the server's writes back up). */
function pausedReader(port: number, urlPath: string): Promise<Paused> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      const since = Date.now();
      const serverSide = serverSockets.get(socket.localPort!);
      if (!serverSide) return reject(new Error('the server has no socket for this connection'));
      const closed = serverSide.destroyed ? Promise.resolve(0) : new Promise<number>((done) => serverSide.once('close', () => done(Date.now() - since)));
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0), closed });
    });
    socket.write(`GET ${urlPath} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
}

let port: number;
let image: { url: string; name: string };
beforeAll(async () => {
  app.strapi.server.httpServer.on('connection', (socket: net.Socket) => serverSockets.set(socket.remotePort!, socket));
  port = await listening(app.strapi.server.httpServer);
  const res = await app.upload(app.key, await noisePng(1600, 1400), { filename: 'noise.png' });
  expect(res.status).toBe(200);
  image = res.body.image;
});

test('a paused reader of a large direct file is cut off once it has taken nothing for sendIdleTimeoutMs', async () => {
  const reader = await pausedReader(port, app.pathOf(image.url));
  expect(reader.status).toBe(200);
  const closedAfter = await reader.closed;
  reader.socket.destroy();
  expect(closedAfter).toBeGreaterThanOrEqual(IDLE_MS - 100);
  expect(closedAfter).toBeLessThan(IDLE_MS + SLACK_MS);
});

test('a fresh render keeps its render ticket while its client is not reading: the gate is full until the idle limit cuts the readers off', async () => {
  const render = (width: number) => `/img/_/w:${width}/f:png/plain/${image.url}`;
  const first = await pausedReader(port, render(1500));
  const second = await pausedReader(port, render(1501));
  expect([first.status, second.status]).toEqual([200, 200]);
  // Both tickets are held by answers still being sent: a third render waits for them.
  const refused = await app.http.get(render(1502));
  expect([refused.status, refused.headers['retry-after'], refused.body.error?.code]).toEqual([503, '2', 503]);
  const closedAfter = await Promise.all([first.closed, second.closed]);
  for (const reader of [first, second]) reader.socket.destroy();
  expect(Math.max(...closedAfter)).toBeLessThan(IDLE_MS + SLACK_MS);
  const served = await app.http.get(render(1502)).buffer(true);
  expect([served.status, served.headers['content-type']]).toEqual([200, 'image/png']);
  // A reader that reads is not cut off, however long the answer (this one took its bytes as they came).
  expect(served.body.length).toBeGreaterThan(1_000_000);
});

test('a Range past the end of a Media Library file answers 416 with the file\'s size, inert (Strapi\'s answer was a 206 with a negative length)', async () => {
  const name = `library-file_${'ab12cd34ef'}.txt`;
  fs.writeFileSync(path.join(app.uploadsDir, name), 'thirty-eight bytes of a library file..');
  try {
    const past = await requestPath(port, 'GET', `/uploads/${name}`, { Range: 'bytes=999-' });
    expect([past.status, past.headers['content-range'], past.headers['content-security-policy'], past.headers['content-disposition']]).toEqual([
      416, 'bytes */38', "sandbox; default-src 'none'", 'attachment',
    ]);
    const within = await requestPath(port, 'GET', `/uploads/${name}`, { Range: 'bytes=0-9' });
    expect([within.status, within.body.toString()]).toEqual([206, 'thirty-eig']);
  } finally {
    fs.rmSync(path.join(app.uploadsDir, name), { force: true });
  }
});

test('an image whose deletion is under way (its record gone, its files not yet) is not served as a Media Library file', async () => {
  const doomed = (await app.upload(app.key, await noisePng(300, 200), { filename: 'doomed.png' })).body.image;
  const fileName = path.basename(app.pathOf(doomed.url));
  const journal = app.strapi.plugin('image-api').service('journal');
  // As image-removal.ts does: the journal names the files, then the records go, then the files.
  await journal.openMany([{ name: doomed.name, files: [{ hash: doomed.name, ext: '.png' }] }]);
  await app.strapi.db.query('plugin::image-api.image').delete({ where: { name: doomed.name } });
  // The image lookup is reused for a second: wait it out so the record's absence is seen.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect(fs.existsSync(path.join(app.uploadsDir, fileName))).toBe(true);
  const during = await requestPath(port, 'GET', `/uploads/${fileName}`);
  expect([during.status, during.headers['cache-control']]).toEqual([404, 'no-store']);
  await journal.closeNames([doomed.name]);
  // With no journal row either, a file of that name is the operator's own: Strapi serves it.
  const after = await requestPath(port, 'GET', `/uploads/${fileName}`);
  expect(after.status).toBe(200);
});
