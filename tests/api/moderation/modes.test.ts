/**
 * Moderation's modes on the upload (docs/moderation.md): the real classifier (nsfwjs in its worker
 * thread) scores real pictures whose class is not in doubt, and each mode is proven with a threshold
 * set around an image's own score: `off` classifies nothing, `flag` marks, `hold` keeps every URL
 * 404, `refuse` answers 422 (code 106) and leaves nothing; the client's `nsfw=1` always counts.
 */
import fs from 'fs';
import { startApp, type TestApp } from '../../helpers/app';
import { drawing, landscapePhoto } from '../../helpers/moderation-fixtures';
import { parseSamples, sample } from '../../helpers/prometheus-text';

const TOKEN = 'metrics-token-for-moderation-tests';

let app: TestApp;
/** The landscape's own NSFW score, as the first classification stored it. */
let landscapeScore: number;

type Mode = 'off' | 'flag' | 'hold' | 'refuse';

/** A key with its own moderation (null: the option's). */
async function keyWith(moderation: Mode | null, moderationThreshold: number | null = null): Promise<string> {
  const { key } = await app.strapi.plugin('image-api').service('api-keys').create({ name: `key ${Math.random()}`, moderation, moderationThreshold });
  return key;
}

const row = (idEncoded: string) => app.strapi.db.connection('image_api_images').where('id_encoded', idEncoded).first();

/** nsfw_scores as stored (MySQL hands JSON columns back parsed). */
const scoresOf = (stored: { nsfw_scores: unknown }) =>
  (typeof stored.nsfw_scores === 'string' ? JSON.parse(stored.nsfw_scores) : stored.nsfw_scores) as Record<string, number>;

const topClass = (scores: Record<string, number>) => Object.entries(scores).sort((a, b) => b[1] - a[1])[0][0];

/** Every URL of a stored image: the original, both variants and a transformation. */
const urlsOf = (image: { url: string; thumb: { url: string }; medium: { url: string } }) => [
  app.pathOf(image.url),
  app.pathOf(image.thumb.url),
  app.pathOf(image.medium.url),
  `/img/_/pr:small/plain/${image.url}@webp`,
];

const metrics = async () => parseSamples((await app.http.get('/_metrics').set('Authorization', `Bearer ${TOKEN}`)).text);

beforeAll(async () => {
  app = await startApp({ IMAGE_API_METRICS_TOKEN: TOKEN });
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

test('the default (off): nothing classified, nothing stored of it; a client nsfw=1 is carried', async () => {
  const key = await app.createKey();
  const res = await app.upload(key, landscapePhoto(), { filename: 'mountains.jpg' });
  expect(res.status).toBe(200);
  expect([res.body.image.moderation, res.body.image.nsfw]).toEqual(['none', '0']);
  const stored = await row(res.body.image.id_encoded);
  expect([stored.moderation, stored.nsfw_score, stored.nsfw_scores, stored.review_since, Number(stored.report_count)]).toEqual(['none', null, null, null, 0]);

  const marked = await app.upload(key, landscapePhoto(), { filename: 'mountains.jpg', fields: { nsfw: '1' } });
  expect([marked.body.image.moderation, marked.body.image.nsfw]).toEqual(['none', '1']);
  expect((await row(marked.body.image.id_encoded)).nsfw_score).toBeNull();
  // Nothing classified: the model was never asked.
  expect(sample(await metrics(), 'image_api_classification_seconds_count{outcome="ok"}')).toBe(0);
});

test('the classifier: a photograph of a landscape is neutral, a drawing a drawing; scores stored with the image', async () => {
  const key = await keyWith('flag', 1);
  const photo = await app.upload(key, landscapePhoto(), { filename: 'mountains.jpg' });
  expect(photo.status).toBe(200);
  const photoRow = await row(photo.body.image.id_encoded);
  const photoScores = scoresOf(photoRow);
  expect(Object.keys(photoScores).sort()).toEqual(['drawing', 'hentai', 'neutral', 'porn', 'sexy']);
  expect(Object.values(photoScores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
  expect(topClass(photoScores)).toBe('neutral');
  // The score: porn + hentai + sexy, rounded as stored.
  landscapeScore = Number(photoRow.nsfw_score);
  expect(landscapeScore).toBeCloseTo(photoScores.porn + photoScores.hentai + photoScores.sexy, 4);
  expect(landscapeScore).toBeLessThan(0.2);

  const drawn = await app.upload(key, drawing(), { filename: 'starter.png' });
  expect(drawn.status).toBe(200);
  expect(topClass(scoresOf(await row(drawn.body.image.id_encoded)))).toBe('drawing');

  const samples = await metrics();
  expect(sample(samples, 'image_api_classification_seconds_count{outcome="ok"}')).toBe(2);
  expect(sample(samples, 'image_api_classification_seconds_count{outcome="failed"}')).toBe(0);
});

test('flag: at its threshold the image is marked, public, in the review queue; just above it, not', async () => {
  const flagged = await app.upload(await keyWith('flag', landscapeScore), landscapePhoto(), { filename: 'mountains.jpg' });
  expect(flagged.status).toBe(200);
  expect([flagged.body.image.moderation, flagged.body.image.nsfw]).toEqual(['flagged', '1']);
  const stored = await row(flagged.body.image.id_encoded);
  expect([stored.moderation, Boolean(Number(stored.nsfw))]).toEqual(['flagged', true]);
  expect(Math.abs(new Date(stored.review_since).getTime() - Date.now())).toBeLessThan(60_000);
  // Public: every URL answers.
  for (const url of urlsOf(flagged.body.image)) expect([url, (await app.http.get(url)).status]).toEqual([url, 200]);

  const above = Math.min(1, landscapeScore + 0.0001);
  const passed = await app.upload(await keyWith('flag', above), landscapePhoto(), { filename: 'mountains.jpg' });
  expect([passed.body.image.moderation, passed.body.image.nsfw]).toEqual(['none', '0']);
  const passedRow = await row(passed.body.image.id_encoded);
  expect([passedRow.moderation, passedRow.review_since]).toEqual(['none', null]);
  expect(Number(passedRow.nsfw_score)).toBe(landscapeScore);
});

test('hold: the answer says held; the original, both variants and transformations answer 404', async () => {
  const before = sample(await metrics(), 'image_api_moderation_total{action="held"}');
  const held = await app.upload(await keyWith('hold', 0), landscapePhoto(), { filename: 'mountains.jpg' });
  expect(held.status).toBe(200);
  expect([held.body.image.moderation, held.body.image.nsfw]).toEqual(['held', '1']);
  const stored = await row(held.body.image.id_encoded);
  expect(stored.moderation).toBe('held');
  expect(stored.review_since).not.toBeNull();
  // The files are stored, and not served.
  expect(fs.readdirSync(app.uploadsDir).filter((name) => name.startsWith(`${held.body.image.name}.`))).toHaveLength(3);
  for (const url of urlsOf(held.body.image)) {
    const res = await app.http.get(url);
    expect([url, res.status]).toEqual([url, 404]);
  }
  expect(sample(await metrics(), 'image_api_moderation_total{action="held"}')).toBe(before + 1);
});

test("hold: a client's nsfw=1 counts as past any threshold", async () => {
  const held = await app.upload(await keyWith('hold', 1), landscapePhoto(), { filename: 'mountains.jpg', fields: { nsfw: '1' } });
  expect([held.status, held.body.image.moderation]).toEqual([200, 'held']);
  const passed = await app.upload(await keyWith('hold', 1), landscapePhoto(), { filename: 'mountains.jpg' });
  expect([passed.status, passed.body.image.moderation]).toEqual([200, 'none']);
});

test('refuse: 422, code 106; no file, row or temp file left', async () => {
  const knex = app.strapi.db.connection;
  const count = async (table: string) => Number((await knex(table).count({ n: '*' }))[0].n);
  const files = fs.readdirSync(app.uploadsDir).length;
  const [images, fileRows, journal] = [await count('image_api_images'), await count('files'), await count('image_api_pending_uploads')];

  const refused = await app.upload(await keyWith('refuse', landscapeScore), landscapePhoto(), { filename: 'mountains.jpg' });
  expect(refused.status).toBe(422);
  expect(refused.body).toEqual({ status_code: 422, error: { message: 'Image refused by moderation', code: 106 }, status_txt: 'Unprocessable Entity' });
  const marked = await app.upload(await keyWith('refuse', 1), landscapePhoto(), { filename: 'mountains.jpg', fields: { nsfw: '1' } });
  expect([marked.status, marked.body.error.code]).toEqual([422, 106]);

  expect(fs.readdirSync(app.uploadsDir).length).toBe(files);
  expect([await count('image_api_images'), await count('files'), await count('image_api_pending_uploads')]).toEqual([images, fileRows, journal]);
  expect(fs.existsSync(app.tmpDir) ? fs.readdirSync(app.tmpDir) : []).toEqual([]);
  expect(sample(await metrics(), 'image_api_moderation_total{action="refused"}')).toBe(2);

  // Below its threshold, the same key stores.
  const passed = await app.upload(await keyWith('refuse', 1), landscapePhoto(), { filename: 'mountains.jpg' });
  expect([passed.status, passed.body.image.moderation]).toEqual([200, 'none']);
});
