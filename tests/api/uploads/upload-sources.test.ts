/**
 * The three sources (file part, base64, URL) and the three formats (json, txt, redirect): the
 * full image JSON, and the bytes actually served.
 */
import crypto from 'crypto';
import fs from 'fs';
import { useApp } from '../../helpers/app';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server';
import { jpeg, png } from '../../helpers/fixtures';
import { expectServedFiles, expectUploadJson } from '../../helpers/image-json';

let fixtures: FixtureServer;
let photo: Buffer;

const app = useApp({ IMAGE_API_URL_ALLOWLIST: '127.0.0.1' });
beforeAll(async () => {
  fixtures = await startFixtureServer();
  photo = await jpeg(1200, 800);
  fixtures.add('photo.jpg', photo, 'image/jpeg');
});
afterAll(async () => {
  await fixtures?.close();
});

const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');

describe.each([
  ['file part', (req: any) => req.field('key', app.key).attach('source', photo, 'Holiday photo.jpg'), 'Holiday photo.jpg'],
  ['base64', (req: any) => req.type('form').send({ key: app.key, source: photo.toString('base64') }), null],
  ['URL', (req: any) => req.type('form').send({ key: app.key, source: fixtures.url('/img/photo.jpg') }), 'photo.jpg'],
])('source: %s', (_label, send, originalName) => {
  test('format=json answers the full image JSON, and the files served match it', async () => {
    const res = await send(app.http.post('/api/1/upload'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });

    expect([image.width, image.height]).toEqual([1200, 800]);
    expect(image.bits).toBe(8);
    expect(image.channels).toBe(3);
    expect(image.ratio).toBe(1.5);
    expect(image.size).toBe(photo.length);
    expect(image.md5).toBe(md5(photo));
    expect(image.nsfw).toBe('0');
    expect(image.description).toBeNull();
    if (originalName) expect(image.original_filename).toBe(originalName);
    else expect(image.original_filename).toBe(`${image.id_encoded}.jpg`);
    expect([image.thumb.width, image.thumb.height]).toEqual([160, 160]);
    expect([image.medium.width, image.medium.height]).toEqual([500, 333]);

    const served = await expectServedFiles(app, image);
    expect(served.equals(photo)).toBe(true);
  });

  test('format=txt answers the direct URL alone, as text/plain', async () => {
    const res = await send(app.http.post('/api/1/upload?format=txt'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toMatch(/^http:\/\/img\.test:1337\/uploads\/[A-Za-z0-9-]+\.jpg$/);
    const served = await app.http.get(app.pathOf(res.text));
    expect(served.status).toBe(200);
    expect(Number(served.headers['content-length'])).toBe(photo.length);
  });

  test('format=redirect answers 302 to the absolute viewer URL, which serves HTML', async () => {
    const res = await send(app.http.post('/api/1/upload?format=redirect')).redirects(0);
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(/^http:\/\/img\.test:1337\/image\/[A-Za-z0-9]{1,12}$/);
    expect(res.text).toBe('');
    const viewer = await app.http.get(app.pathOf(res.headers.location));
    expect(viewer.status).toBe(200);
    expect(viewer.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

test('a PNG keeps its format; title, description and nsfw are recorded', async () => {
  const image = await png(640, 480, true);
  const res = await app.http
    .post('/api/1/upload')
    .field('key', app.key)
    .field('title', 'A title')
    .field('description', 'Some words')
    .field('nsfw', '1')
    .attach('source', image, 'shot.png');
  expect(res.status).toBe(200);
  const json = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
  expect(json.channels).toBe(4);
  expect(json.description).toBe('Some words');
  expect(json.title).toBe('A title');
  expect(json.nsfw).toBe('1');
  expect(json.size).toBe(image.length);
  await expectServedFiles(app, json);

  const record = await app.strapi.db
    .query('plugin::image-api.image')
    .findOne({ where: { id_encoded: json.id_encoded }, populate: { file: true, api_key: true } });
  expect(record).toMatchObject({
    name: json.name,
    md5: json.md5,
    title: 'A title',
    description: 'Some words',
    nsfw: true,
    original_filename: 'shot.png',
  });
  expect(Number(record.views)).toBe(0);
  expect(record.api_key.name).toBe('test key 1');
  expect(record.file).toMatchObject({ hash: json.name, ext: '.png', mime: 'image/png', width: 640, height: 480 });
});

test('ids and names never collide across uploads of the same file', async () => {
  const bodies = [];
  for (let i = 0; i < 5; i++) {
    const res = await app.upload(app.key, photo, { filename: 'same.jpg', keyIn: 'field' });
    expect(res.status).toBe(200);
    bodies.push(res.body.image);
  }
  expect(new Set(bodies.map((b) => b.id_encoded)).size).toBe(5);
  expect(new Set(bodies.map((b) => b.url)).size).toBe(5);
  for (const b of bodies) expect(b.name).toBe(`same-${b.id_encoded}`);
});

test('URL sources keep working when the temp root is removed while the app runs, and leave nothing in it', async () => {
  const send = () => app.http.post('/api/1/upload').type('form').send({ key: app.key, source: fixtures.url('/img/photo.jpg') });
  expect((await send()).status).toBe(200);
  fs.rmSync(app.tmpDir, { recursive: true, force: true });
  const res = await send();
  expect(res.status).toBe(200);
  expect(res.body.image.size).toBe(photo.length);
  expect(fs.readdirSync(app.tmpDir)).toEqual([]);
});
