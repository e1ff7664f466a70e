/**
 * Idempotency-Key (docs/api.md, "Retrying an upload"): a repeated request answers the first upload's
 * answer and stores nothing; twins racing store one image; remembered per API key for 24 hours.
 */
import fs from 'fs';
import { useApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';
import { tracesOf } from '../../helpers/leftovers';

const TABLE = 'image_api_idempotent_uploads';
let image: Buffer;

const app = useApp();
beforeAll(async () => {
  image = await png(64, 48);
});

const upload = (idempotencyKey: string | null, apiKey = app.key, format = 'json') =>
  app.upload(apiKey, image, { query: `format=${format}`, headers: idempotencyKey === null ? {} : { 'Idempotency-Key': idempotencyKey } });
const imageCount = async () => Number((await app.strapi.db.connection('image_api_images').count({ n: '*' }))[0].n);
const rows = () => app.strapi.db.connection(TABLE).select('*');
const files = () => fs.readdirSync(app.uploadsDir).length;

test('the same request twice: one image; the second answer is the first one, marked as replayed', async () => {
  const before = { images: await imageCount(), files: files() };
  const first = await upload('retry-1');
  expect(first.status).toBe(200);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const second = await upload('retry-1');
  expect(second.status).toBe(200);
  expect(second.headers['idempotent-replayed']).toBe('true');
  // Every field the same, the delete link too; how_long_ago is computed when answered.
  const { how_long_ago: _a, ...firstImage } = first.body.image;
  const { how_long_ago: _b, ...secondImage } = second.body.image;
  expect(secondImage).toEqual(firstImage);
  expect(Object.keys(second.body.image)).toEqual(Object.keys(first.body.image));
  expect(await imageCount()).toBe(before.images + 1);
  expect(files()).toBe(before.files + 3);

  // The replayed delete link is the real one: it deletes the image.
  const deleted = await app.http.delete(app.pathOf(second.body.image.delete_url));
  expect(deleted.status).toBe(200);
  const traces = await tracesOf(app, first.body.image.name);
  expect([traces.imageRows, traces.files]).toEqual([0, []]);
});

test('the delete secret is not stored: the row holds the answer without its delete link', async () => {
  const res = await upload('no-secret-at-rest');
  const [row] = (await rows()).filter((r: any) => r.idempotency_key === 'no-secret-at-rest');
  const secret = res.body.image.delete_url.split('/').pop();
  expect(JSON.stringify(row)).not.toContain(secret);
  const answer = typeof row.answer === 'string' ? JSON.parse(row.answer) : row.answer;
  expect(answer.deleteUrl).toBeUndefined();
  expect(answer.idEncoded).toBe(res.body.image.id_encoded);
});

test('a replay answers in the format asked, and is not charged to the rate limit', async () => {
  app.strapi.config.set('plugin::image-api.rateLimit', '1/minute');
  try {
    const limited = await app.createKey('one per minute');
    const first = await upload('fmt', limited, 'txt');
    expect(first.status).toBe(200);
    const again = await upload('fmt', limited, 'txt');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const redirect = await upload('fmt', limited, 'redirect');
    expect(redirect.status).toBe(302);
    // A new upload is charged: this one is over the budget.
    expect((await upload('another', limited)).status).toBe(429);
  } finally {
    app.strapi.config.set('plugin::image-api.rateLimit', 'off');
  }
});

test('the same Idempotency-Key from another API key is another upload', async () => {
  const other = await app.createKey('other key');
  const a = await upload('shared-name');
  const b = await upload('shared-name', other);
  expect(b.headers['idempotent-replayed']).toBeUndefined();
  expect(b.body.image.id_encoded).not.toBe(a.body.image.id_encoded);
});

test('twins racing with one Idempotency-Key store one image and both get its answer', async () => {
  const before = { images: await imageCount(), files: files() };
  const answers = await Promise.all(Array.from({ length: 6 }, () => upload('twins')));
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(new Set(answers.map((r) => r.body.image.id_encoded)).size).toBe(1);
  expect(new Set(answers.map((r) => r.body.image.delete_url)).size).toBe(1);
  expect(await imageCount()).toBe(before.images + 1);
  expect(files()).toBe(before.files + 3);
  expect((await rows()).filter((r: any) => r.idempotency_key === 'twins')).toHaveLength(1);
  const journal = await app.strapi.db.connection('image_api_pending_uploads').count({ n: '*' });
  expect(Number(journal[0].n)).toBe(0);
});

test('a refused upload is not remembered: the retry runs again', async () => {
  const bad = await app.http.post('/api/1/upload').set('X-API-Key', app.key).set('Idempotency-Key', 'refused').attach('source', Buffer.from('not an image'), 'a.png');
  expect(bad.status).toBe(400);
  const good = await upload('refused');
  expect(good.status).toBe(200);
  expect(good.headers['idempotent-replayed']).toBeUndefined();
});

test('a day-old Idempotency-Key is forgotten: the request uploads again, and one row is kept', async () => {
  const first = await upload('day-old');
  await app.strapi.db.connection(TABLE).where('idempotency_key', 'day-old').update({ created_at: new Date(Date.now() - 25 * 3600 * 1000) });
  const second = await upload('day-old');
  expect(second.headers['idempotent-replayed']).toBeUndefined();
  expect(second.body.image.id_encoded).not.toBe(first.body.image.id_encoded);
  const kept = (await rows()).filter((r: any) => r.idempotency_key === 'day-old');
  expect(kept.map((r: any) => r.id_encoded)).toEqual([second.body.image.id_encoded]);
});

test('an image deleted since is not replayed: the request uploads again', async () => {
  const first = await upload('deleted-since');
  await app.http.delete(app.pathOf(first.body.image.delete_url)).expect(200);
  const second = await upload('deleted-since');
  expect(second.status).toBe(200);
  expect(second.headers['idempotent-replayed']).toBeUndefined();
  expect(second.body.image.id_encoded).not.toBe(first.body.image.id_encoded);
});

test('the debris sweep removes rows past their 24 hours and keeps the others', async () => {
  await upload('stale');
  await upload('recent');
  await app.strapi.db.connection(TABLE).where('idempotency_key', 'stale').update({ created_at: new Date(Date.now() - 25 * 3600 * 1000) });
  const swept = await app.strapi.plugin('image-api').service('debris-sweep').run();
  expect(swept.idempotencyKeys).toBe(1);
  const left = (await rows()).map((r: any) => r.idempotency_key);
  expect(left).toContain('recent');
  expect(left).not.toContain('stale');
});

test.each([
  ['too long', 'x'.repeat(256)],
  ['not ASCII', 'clé'],
  ['with a space', 'a b'],
])('an Idempotency-Key %s: 400', async (_, value) => {
  const res = await app.http.post('/api/1/upload').set('X-API-Key', app.key).set('Idempotency-Key', encodeURI(value) === value ? value : Buffer.from(value).toString('latin1')).attach('source', image, 'a.png');
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    status_code: 400,
    error: { message: 'Invalid Idempotency-Key: 1 to 255 visible ASCII characters', code: 400 },
    status_txt: 'Bad Request',
  });
});
