/**
 * The imgbb dialect (docs/api.md, "The imgbb dialect"): `/1/upload` at the server root with imgbb's parameters and
 * answer shape, the `image` field on `/api/1/upload` answered the same way, errors in the API's own
 * shape; and the published imgbb-uploader client, in its imgbb mode and its Chevereto mode.
 */
import crypto from 'crypto';
import fs from 'fs';
import http from 'http';
import https from 'https';
import os from 'os';
import path from 'path';
import type { AddressInfo } from 'net';
import imgbbUploader from 'imgbb-uploader';
import { startApp, PUBLIC_URL, type TestApp } from '../../helpers/app';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server';
import { jpeg, png } from '../../helpers/fixtures';
import { binaryParser, expectPlaceholder } from '../../helpers/image-json';

let app: TestApp;
let fixtures: FixtureServer;
let key: string;
let photo: Buffer;
let port: number;

// imgbb's fields, then ours (docs/api.md, "The image object").
const IMGBB_DATA_FIELDS = ['id', 'title', 'url_viewer', 'url', 'display_url', 'width', 'height', 'size', 'time', 'expiration', 'image', 'thumb', 'medium', 'delete_url', 'placeholder', 'dominant_color', 'moderation'];
const IMGBB_FILE_FIELDS = ['filename', 'name', 'mime', 'extension', 'url'];
const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');

beforeAll(async () => {
  fixtures = await startFixtureServer();
  app = await startApp({ IMAGE_API_URL_ALLOWLIST: '127.0.0.1' });
  key = await app.createKey();
  photo = await jpeg(1200, 800);
  fixtures.add('photo.jpg', photo, 'image/jpeg');
  // A real port, for the published client (it speaks HTTP itself).
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  port = (app.strapi.server.httpServer.address() as AddressInfo).port;
});
afterAll(async () => {
  await app?.stop();
  await fixtures?.close();
});

/** Checks imgbb's shape, field by field with imgbb's types; returns `data`. */
function expectImgbbAnswer(res: any, expected: { extension: string; mime: string; width: number; height: number }) {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Object.keys(res.body)).toEqual(['data', 'success', 'status']);
  expect(res.body.success).toBe(true);
  expect(res.body.status).toBe(200);
  const data = res.body.data;
  expect(Object.keys(data)).toEqual(IMGBB_DATA_FIELDS);
  for (const field of ['id', 'title', 'url_viewer', 'url', 'display_url', 'width', 'height', 'size', 'time', 'expiration', 'delete_url']) {
    expect([field, typeof data[field]]).toEqual([field, 'string']);
  }
  expectPlaceholder({ ...data, width: Number(data.width), height: Number(data.height) });
  expect(data.id).toMatch(/^[A-Za-z0-9]{1,12}$/);
  expect(data.url_viewer).toBe(`${PUBLIC_URL}/image/${data.id}`);
  expect(data.delete_url).toMatch(new RegExp(`^${PUBLIC_URL}/image/${data.id}/delete/[A-Za-z0-9]{32,}$`));
  expect([data.width, data.height]).toEqual([String(expected.width), String(expected.height)]);
  expect(data.size).toMatch(/^\d+$/);
  expect(Math.abs(Number(data.time) - Date.now() / 1000)).toBeLessThan(30);
  for (const [variant, suffix] of [['image', ''], ['thumb', '.th'], ['medium', '.md']] as const) {
    const file = data[variant];
    expect(Object.keys(file)).toEqual(IMGBB_FILE_FIELDS);
    expect(file.name).toBe(`${data.image.name}${suffix}`);
    expect(file.filename).toBe(`${file.name}.${expected.extension}`);
    expect(file.extension).toBe(expected.extension);
    expect(file.mime).toBe(expected.mime);
    expect(file.url).toBe(`${PUBLIC_URL}/uploads/${file.filename}`);
  }
  expect(data.url).toBe(data.image.url);
  expect(data.display_url).toBe(data.medium.url);
  return data;
}

/** The stored original, as served. */
const served = async (url: string) => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body as Buffer;

describe('/1/upload, as imgbb clients send it', () => {
  test.each([
    ['a file part `image`', (req: any) => req.field('key', key).attach('image', photo, 'holiday.jpg')],
    ['base64 in a urlencoded body, the key in the query', (req: any) => req.query({ key }).type('form').send({ image: photo.toString('base64') })],
    ['a URL', (req: any) => req.type('form').send({ key, image: fixtures.url('/img/photo.jpg') })],
  ])('%s: imgbb\'s answer, the bytes stored and served', async (_label, send) => {
    const data = expectImgbbAnswer(await send(app.http.post('/1/upload')), { extension: 'jpg', mime: 'image/jpeg', width: 1200, height: 800 });
    expect(data.expiration).toBe('0');
    expect(data.size).toBe(String(photo.length));
    expect(md5(await served(data.url))).toBe(md5(photo));
    expect((await app.http.get(app.pathOf(data.thumb.url))).status).toBe(200);
    expect((await app.http.get(app.pathOf(data.url_viewer))).status).toBe(200);
    // The delete link is the API's own: GET confirms, never deletes.
    expect((await app.http.get(app.pathOf(data.delete_url))).status).toBe(200);
  });

  test('`name` becomes the title, `expiration` (seconds) is kept and reported as asked', async () => {
    const res = await app.http.post('/1/upload').query({ key, name: 'My cat', expiration: '600' }).type('form').send({ image: photo.toString('base64') });
    const data = expectImgbbAnswer(res, { extension: 'jpg', mime: 'image/jpeg', width: 1200, height: 800 });
    expect(data.title).toBe('My cat');
    expect(data.expiration).toBe('600');
    const row = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: data.id } });
    expect(row.title).toBe('My cat');
    expect(new Date(row.expires_at).getTime() - new Date(row.createdAt).getTime()).toBeGreaterThanOrEqual(599_000);
  });

  test('an untitled upload is titled with its file\'s name, as imgbb does', async () => {
    const data = expectImgbbAnswer(await app.http.post('/1/upload').field('key', key).attach('image', photo, 'beach.jpg'), {
      extension: 'jpg', mime: 'image/jpeg', width: 1200, height: 800,
    });
    expect(data.title).toBe(data.image.name);
    expect(data.image.name).toMatch(/^beach-/);
  });

  test.each(['/1/upload', '/1/upload/'])('GET %s with a URL works too', async (route) => {
    const res = await app.http.get(route).query({ key, image: fixtures.url('/img/photo.jpg') });
    expectImgbbAnswer(res, { extension: 'jpg', mime: 'image/jpeg', width: 1200, height: 800 });
  });

  test('format=txt and format=redirect answer as on /api/1/upload', async () => {
    const txt = await app.http.post('/1/upload?format=txt').type('form').send({ key, image: photo.toString('base64') });
    expect(txt.status).toBe(200);
    expect(txt.text).toMatch(new RegExp(`^${PUBLIC_URL}/uploads/[^/]+\\.jpg$`));
    const redirect = await app.http.post('/1/upload?format=redirect').type('form').send({ key, image: photo.toString('base64') });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toMatch(new RegExp(`^${PUBLIC_URL}/image/[A-Za-z0-9]+$`));
  });

  test('errors keep the API\'s shape, statuses and codes', async () => {
    const cases: Array<[any, number, number]> = [
      [app.http.post('/1/upload').type('form').send({ image: photo.toString('base64') }), 401, 100],
      [app.http.post('/1/upload').type('form').send({ key: 'img_nope', image: photo.toString('base64') }), 401, 100],
      [app.http.post('/1/upload').type('form').send({ key }), 400, 130],
      [app.http.get('/1/upload').query({ key, image: photo.toString('base64').slice(0, 200) }), 400, 130],
      [app.http.post('/1/upload').type('form').send({ key, image: Buffer.from('<html></html>').toString('base64') }), 400, 310],
      [app.http.post('/1/upload').type('form').send({ key, image: photo.toString('base64'), expiration: 'soon' }), 400, 150],
      [app.http.put('/1/upload').type('form').send({ key, image: photo.toString('base64') }), 405, 405],
    ];
    for (const [request, status, code] of cases) {
      const res = await request;
      expect([res.status, res.body.status_code, res.body.error?.code]).toEqual([status, status, code]);
      expect(Object.keys(res.body)).toEqual(['status_code', 'error', 'status_txt']);
    }
  });

  test('CORS: a browser may call it', async () => {
    const preflight = await app.http
      .options('/1/upload')
      .set('Origin', 'https://editor.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const res = await app.http.post('/1/upload').set('Origin', 'https://editor.example').type('form').send({ key, image: photo.toString('base64') });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('/api/1/upload', () => {
  test('an image in the `image` field is answered in imgbb\'s shape, as the reference implementation does', async () => {
    const res = await app.http.post('/api/1/upload').field('key', key).attach('image', photo, 'x.jpg');
    expectImgbbAnswer(res, { extension: 'jpg', mime: 'image/jpeg', width: 1200, height: 800 });
  });

  test('in `source` (even with an `image` beside it), the API\'s own shape', async () => {
    const res = await app.http.post('/api/1/upload').type('form').send({ key, source: photo.toString('base64'), image: 'ignored' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['status_code', 'success', 'image', 'status_txt']);
  });
});

describe('the published client imgbb-uploader 1.5.1', () => {
  let file: string;
  beforeAll(async () => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-imgbb-')), 'screenshot.png');
    fs.writeFileSync(file, await png(640, 400));
  });

  test('imgbb mode (its requests to api.imgbb.com pointed at this server): file, base64 and URL, name and expiration', async () => {
    // The client calls https.request({ hostname: 'api.imgbb.com', path: '/1/upload?key=...' }):
    // the same request goes to this server over plain HTTP instead. Nothing leaves the machine.
    const sent: string[] = [];
    const spy = jest.spyOn(https, 'request').mockImplementation(((options: https.RequestOptions, callback: any) => {
      expect(options.hostname).toBe('api.imgbb.com');
      sent.push(`${options.method} ${options.path}`);
      return http.request({ ...options, hostname: '127.0.0.1', port, agent: undefined }, callback);
    }) as any);
    try {
      const fromPath = (await imgbbUploader(key, file)) as any;
      expect(fromPath.image.extension).toBe('png');
      expect([fromPath.width, fromPath.height]).toEqual(['640', '400']);
      const named = (await imgbbUploader({ apiKey: key, base64string: photo.toString('base64'), name: 'from a bot', expiration: 3600 })) as any;
      expect(named.title).toBe('from a bot');
      expect(named.expiration).toBe('3600');
      const fromUrl = (await imgbbUploader({ apiKey: key, imageUrl: fixtures.url('/img/photo.jpg') })) as any;
      expect(md5(await served(fromUrl.url))).toBe(md5(photo));
      // What it reads of a refusal: the API's error object.
      await expect(imgbbUploader('img_wrong', file)).rejects.toThrow(/Invalid API key/);
    } finally {
      spy.mockRestore();
    }
    expect(sent[0]).toBe(`POST /1/upload?key=${key}`);
    expect(sent[1]).toBe(`POST /1/upload?key=${key}&name=from%20a%20bot&expiration=3600`);
  });

  test('Chevereto mode (cheveretoHost): the API\'s own answer', async () => {
    const answer = (await imgbbUploader({ apiKey: key, imagePath: file, cheveretoHost: `http://127.0.0.1:${port}` })) as any;
    expect(answer.status_code).toBe(200);
    expect(answer.image.extension).toBe('png');
    expect(answer.image.url_viewer).toMatch(new RegExp(`^${PUBLIC_URL}/image/`));
    const titled = (await imgbbUploader({
      apiKey: key, base64string: photo.toString('base64'), cheveretoHost: `http://127.0.0.1:${port}`, customPayload: { title: 'via customPayload' },
    })) as any;
    expect(titled.image.title).toBe('via customPayload');
  });
});

describe('imgbbPath', () => {
  test('another path, or off', async () => {
    await app.stop();
    app = await startApp({ IMAGE_API_IMGBB_PATH: '/imgbb/1/upload' });
    key = await app.createKey();
    expect((await app.http.post('/imgbb/1/upload').type('form').send({ key, image: photo.toString('base64') })).body.success).toBe(true);
    // Not a route any more: Strapi's own answer to a POST on a path it serves only by GET (static
    // files), 405 with `Allow: HEAD, GET` (a small body, or Strapi's body parser refuses it first).
    const gone = async () => {
      const res = await app.http.post('/1/upload').type('form').send({ key, image: 'aGk=' });
      expect([res.status, res.headers.allow, res.text]).toEqual([405, 'HEAD, GET', 'Method Not Allowed']);
    };
    await gone();
    await app.stop();
    app = await startApp({ IMAGE_API_IMGBB_PATH: 'off' });
    key = await app.createKey();
    await gone();
    // The field still works on /api/1/upload.
    expect((await app.http.post('/api/1/upload').type('form').send({ key, image: photo.toString('base64') })).body.success).toBe(true);
  });
});
