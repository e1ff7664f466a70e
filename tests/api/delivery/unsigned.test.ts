/**
 * Transformations with no key and salt (docs/api.md, "Transformations"): every URL is accepted, but only presets are
 * kept; any other size is rendered each time, so a client without a key cannot fill the storage
 * with sizes of its choosing, nor ask for GIF (docs/security.md, "Transformations"), though an
 * animated GIF stays animated. Kept results have a byte budget by default.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';
import { plays, readAnimation } from '../../helpers/animation';
import { animatedGif } from '../../../tools/support/images/gif';

// Set empty, so the app's .env cannot set them. One render at a time per address (the suite's clients share one).
const app = useApp({ IMAGE_API_TRANSFORM_KEY: '', IMAGE_API_TRANSFORM_SALT: '', IMAGE_API_MAX_RENDERS_PER_ADDRESS: '1' });
const renditions = () => app.strapi.db.connection('image_api_renditions');
const settled = () => app.strapi.plugin('image-api').service('renditions').settled();

test('any size is answered unsigned, rendered each time and never kept; a preset is kept', async () => {
  const image = (await app.upload(app.key, await jpeg(800, 600), { filename: 'open.jpg' })).body.image;
  const files = fs.readdirSync(app.uploadsDir).length;
  for (let i = 0; i < 3; i++) {
    const res = await app.http.get(`/img/anything/rs:fit:${150 + i}:0/plain/${image.url}@png`);
    expect([res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([200, 'image/png', 'public, max-age=2592000, immutable']);
  }
  await settled();
  expect(await renditions().where('image_name', image.name)).toHaveLength(0);
  expect(fs.readdirSync(app.uploadsDir)).toHaveLength(files);
  expect(await app.strapi.db.connection('image_api_pending_uploads')).toHaveLength(0);

  const preset = await app.http.get(`/img/_/pr:small/plain/${image.url}@webp`);
  expect(preset.status).toBe(200);
  await settled();
  expect(await renditions().where('image_name', image.name)).toHaveLength(1);
  expect(fs.readdirSync(app.uploadsDir)).toHaveLength(files + 1);
});

test('no URL is signed here: none may ask for GIF (400/180)', async () => {
  const image = (await app.upload(app.key, await jpeg(400, 300), { filename: 'nogif.jpg' })).body.image;
  for (const urlPath of [`/img/anything/rs:fit:150:0/plain/${image.url}@gif`, `/img/x/f:gif/w:100/plain/${image.url}`, `/img/x/format:GIF/plain/${image.url}`]) {
    const res = await app.http.get(urlPath);
    expect([urlPath, res.status, res.body.error]).toEqual([urlPath, 400, { message: 'Invalid transformation: GIF output needs a signed URL', code: 180 }]);
  }
});

test('an animated GIF source stays animated unsigned: WebP for a client that takes it, else its own GIF (bounded as any animation); GIF named still needs a signature', async () => {
  const bytes = animatedGif({ width: 300, height: 200, frames: 6, distinct: 3, delaysCs: [5, 10], loops: 0 });
  const image = (await app.upload(app.key, bytes, { filename: 'moving.gif' })).body.image;
  for (const [accept, format] of [['image/avif,image/webp,*/*', 'webp'], ['*/*', 'gif'], [undefined, 'gif']] as const) {
    const req = app.http.get(`/img/anything/rs:fit:150:0/plain/${image.url}`);
    const res = await (accept ? req.set('Accept', accept) : req);
    expect([accept, res.status, res.headers['content-type'], res.headers.vary]).toEqual([accept, 200, `image/${format}`, 'Accept']);
    const animation = readAnimation(res.body);
    expect([animation.format, animation.width, animation.height, animation.frames, animation.delaysMs, plays(animation)]).toEqual([format, 150, 100, 6, [50, 100, 50, 100, 50, 100], 0]);
  }
  const named = await app.http.get(`/img/anything/rs:fit:150:0/plain/${image.url}@gif`);
  expect([named.status, named.body.error]).toEqual([400, { message: 'Invalid transformation: GIF output needs a signed URL', code: 180 }]);
  // Its frames scaled past 20 MP in all: 400/180, as signed.
  const enlarged = await app.http.get(`/img/anything/rs:fit:3000:2000:1/plain/${image.url}`).set('Accept', '*/*');
  expect([enlarged.status, enlarged.body.error]).toEqual([400, { message: 'Invalid transformation: the animated result would exceed 20000000 pixels in all its frames', code: 180 }]);
});

test('kept results have a byte budget by default (1 GB): past it, the least recently used go, rows and files', async () => {
  const image = (await app.upload(app.key, await jpeg(900, 600), { filename: 'budget.jpg' })).body.image;
  for (const preset of ['thumbnail', 'small', 'medium']) {
    expect((await app.http.get(`/img/_/pr:${preset}/plain/${image.url}@jpg`)).status).toBe(200);
    await settled();
  }
  const rows = await renditions().where('image_name', image.name).orderBy('id');
  expect(rows).toHaveLength(3);
  // The oldest stands for a library's worth of results: its row says 1 GB (the file stays small).
  const [oldest] = rows;
  await renditions().where('id', oldest.id).update({ size: 999_999_999, last_used_at: new Date(Date.now() - 3_600_000) });
  expect(await app.strapi.plugin('image-api').service('renditions').maintain()).toBe(1);
  expect((await renditions().where('image_name', image.name)).map((row: { id: number }) => row.id)).toEqual(rows.slice(1).map((row: { id: number }) => row.id));
  expect(fs.existsSync(path.join(app.uploadsDir, `${oldest.hash}${oldest.ext}`))).toBe(false);
  for (const row of rows.slice(1)) expect(fs.existsSync(path.join(app.uploadsDir, `${row.hash}${row.ext}`))).toBe(true);
});

test("renders past an address's share answer 429 with Retry-After at once; its tickets are given back", async () => {
  const image = (await app.upload(app.key, await jpeg(1600, 1200), { filename: 'share.jpg' })).body.image;
  const urls = ['avif', 'webp', 'png', 'jpg'].map((ext) => `/img/_/pr:large/plain/${image.url}@${ext}`);
  const answers = await Promise.all(urls.map((url) => app.http.get(url)));
  const refused = answers.filter((res) => res.status === 429);
  expect(answers.filter((res) => res.status === 200).length).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  expect(answers.length - refused.length - answers.filter((res) => res.status === 200).length).toBe(0);
  for (const res of refused) {
    expect([res.body, res.headers['retry-after'], res.headers['cache-control']]).toEqual([
      { status_code: 429, error: { message: 'Too many renders at once from this address: at most 1', code: 429 }, status_txt: 'Too Many Requests' },
      '2',
      'no-store',
    ]);
  }
  await settled();
  for (const url of urls) expect((await app.http.get(url)).status).toBe(200);
});
