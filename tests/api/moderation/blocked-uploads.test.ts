/**
 * The blocklist on the upload (docs/moderation.md, "Blocklist"): an image a reviewer blocked cannot
 * come back, not as the same file, not re-encoded and resized by 1 %; a different picture can; a
 * hash imported from a list refuses its file before any image work. A refusal is 403, code 107, and
 * leaves nothing behind.
 */
import crypto from 'crypto';
import fs from 'fs';
import sharp from 'sharp';
import { startApp, type TestApp } from '../../helpers/app';
import { landscapePhoto, otherPhoto } from '../../helpers/moderation-fixtures';
import { parseSamples, sample } from '../../helpers/prometheus-text';

const TOKEN = 'metrics-token-for-blocklist-tests';
const BLOCKED = { status_code: 403, error: { message: 'Blocked content', code: 107 }, status_txt: 'Forbidden' };

let app: TestApp;
let key: string;

const service = (name: string) => app.strapi.plugin('image-api').service(name);
const knex = () => app.strapi.db.connection;
const count = async (table: string) => Number((await knex()(table).count({ n: '*' }))[0].n);

/** What an upload could leave: files, image and file rows, journal rows, temp files. */
async function footprint() {
  return {
    files: fs.readdirSync(app.uploadsDir).length,
    images: await count('image_api_images'),
    fileRows: await count('files'),
    journal: await count('image_api_pending_uploads'),
    temp: fs.existsSync(app.tmpDir) ? fs.readdirSync(app.tmpDir).length : 0,
  };
}

beforeAll(async () => {
  app = await startApp({ IMAGE_API_METRICS_TOKEN: TOKEN });
  key = await app.createKey();
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

test("a blocked image's file, and the same picture re-encoded and resized by 1 %, are refused; another picture is not", async () => {
  const first = await app.upload(key, landscapePhoto(), { filename: 'mountains.jpg' });
  expect(first.status).toBe(200);
  const added = await service('review').block(first.body.image.id_encoded, 'test: blocked picture', { adminId: 1 });
  expect(added).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), md5: first.body.image.md5, pdq: expect.stringMatching(/^[0-9a-f]{64}$/) });
  // Taken down with it.
  expect((await app.http.get(app.pathOf(first.body.image.url))).status).toBe(404);

  const before = await footprint();
  const again = await app.upload(key, landscapePhoto(), { filename: 'again.jpg' });
  expect([again.status, again.body]).toEqual([403, BLOCKED]);

  const { width } = await sharp(landscapePhoto()).metadata();
  const reworked = await sharp(landscapePhoto()).resize({ width: Math.round(width! * 0.99) }).jpeg({ quality: 70 }).toBuffer();
  const near = await app.upload(key, reworked, { filename: 'reworked.jpg' });
  expect([near.status, near.body]).toEqual([403, BLOCKED]);
  const asPng = await sharp(landscapePhoto()).png().toBuffer();
  expect((await app.upload(key, asPng, { filename: 'as.png' })).status).toBe(403);
  expect(await footprint()).toEqual(before);

  const other = await app.upload(key, otherPhoto(), { filename: 'coffee.jpg' });
  expect([other.status, other.body.image?.moderation]).toEqual([200, 'none']);

  const samples = parseSamples((await app.http.get('/_metrics').set('Authorization', `Bearer ${TOKEN}`)).text);
  expect(sample(samples, 'image_api_moderation_total{action="blocked"}')).toBe(3);
});

test('a SHA-256 from an imported list refuses its file before any image work; one byte more passes', async () => {
  const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } }).png().toBuffer();
  const digest = crypto.createHash('sha256').update(bytes).digest('hex');
  const imported = await service('blocklist').importText('sha256', `# a list\n${digest}\n\nnot a hash\n`);
  expect(imported).toMatchObject({ added: 1, duplicates: 0 });

  const before = await footprint();
  const refused = await app.upload(key, bytes, { filename: 'listed.png' });
  expect([refused.status, refused.body]).toEqual([403, BLOCKED]);
  expect(await footprint()).toEqual(before);
  // Other bytes of the same picture (a text chunk more): not this hash; a flat blue square has no
  // perceptual fingerprint worth matching either.
  const other = await sharp(bytes).png({ compressionLevel: 1 }).toBuffer();
  expect(other.equals(bytes)).toBe(false);
  expect((await app.upload(key, other, { filename: 'other.png' })).status).toBe(200);
});

test("an entry another instance lists (straight into the table) blocks uploads here within a second; removed there, it stops", async () => {
  const picture = otherPhoto();
  const { pdqOf, pdqBands } = await import('../../../plugins/image-api/server/src/moderation/pdq');
  const hash = (await pdqOf(picture)).hash;
  const row = { kind: 'pdq', hash, source: 'import', ...Object.fromEntries(pdqBands(hash).map((word, i) => [`b_${i}`, word])) };
  await knex()('image_api_blocks').insert(row);
  const until = async (status: number) => {
    const start = Date.now();
    for (;;) {
      const res = await app.upload(key, picture, { filename: 'listed-elsewhere.jpg' });
      if (res.status === status) return Date.now() - start;
      expect(Date.now() - start).toBeLessThan(2000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  expect(await until(403)).toBeLessThan(2000);
  await knex()('image_api_blocks').where({ kind: 'pdq', hash }).del();
  expect(await until(200)).toBeLessThan(2000);
});

test('a PDQ of a flat picture is not listed from an import, and a flat upload is never matched by a perceptual hash', async () => {
  const zeros = '0'.repeat(64);
  const lowQuality = `${'f0'.repeat(32)},12`;
  const imported = await service('blocklist').importText('pdq', `${zeros}\n${lowQuality}\n`);
  expect(imported).toMatchObject({ added: 0 });
  // A solid colour hashes to zeros: with real fingerprints listed (the landscape's, blocked above), it passes.
  const flat = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#777777' } }).jpeg().toBuffer();
  const res = await app.upload(key, flat, { filename: 'grey.jpg' });
  expect(res.status).toBe(200);
});

test('a tall image (the medium bounded in width only) is screened from pixels bounded in height too: answered, matched by nothing', async () => {
  // 500 × 20,000: a medium as tall as the original.
  const stripes = Buffer.alloc(500 * 20_000 * 3);
  for (let y = 0; y < 20_000; y++) stripes.fill((y >> 6) % 2 ? 230 : 20, y * 1500, (y + 1) * 1500);
  const tall = await sharp(stripes, { raw: { width: 500, height: 20_000, channels: 3 } }).png().toBuffer();
  const classified = await app.strapi.plugin('image-api').service('api-keys').create({ name: 'tall', moderation: 'flag', moderationThreshold: 1 });
  const res = await app.upload(classified.key, tall, { filename: 'tall.png' });
  expect([res.status, res.body.image?.height, res.body.image?.moderation]).toEqual([200, 20_000, 'none']);
  const stored = await knex()('image_api_images').where('id_encoded', res.body.image.id_encoded).first();
  expect(stored.nsfw_score).not.toBeNull();
});

test("with exact hashes listed, each answer's md5 is its stored original's, whether that is the bytes as sent or not", async () => {
  // Entries of both exact kinds (matching nothing here), so every upload's bytes are hashed before the image work.
  await service('blocklist').importText('sha256', `${'ab'.repeat(32)}\n`);
  await service('blocklist').importText('md5', `${'cd'.repeat(16)}\n`);
  const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');
  const stored = async (url: string) => (await app.http.get(app.pathOf(url)).buffer(true)).body as Buffer;

  // A PNG with nothing to strip: stored as sent.
  const plain = await sharp(otherPhoto()).resize(120).png().toBuffer();
  const kept = await app.upload(key, plain, { filename: 'plain.png' });
  expect(kept.status).toBe(200);
  const keptFile = await stored(kept.body.image.url);
  expect(keptFile.equals(plain)).toBe(true);
  expect(kept.body.image.md5).toBe(md5(plain));

  // A JPEG whose EXIF is stripped: stored as other bytes, and its md5 is theirs.
  const tagged = await sharp(otherPhoto()).resize(120).jpeg().withExif({ IFD0: { Copyright: 'someone' } }).toBuffer();
  const stripped = await app.upload(key, tagged, { filename: 'tagged.jpg' });
  expect(stripped.status).toBe(200);
  const strippedFile = await stored(stripped.body.image.url);
  expect(strippedFile.equals(tagged)).toBe(false);
  expect(stripped.body.image.md5).toBe(md5(strippedFile));
  expect(stripped.body.image.md5).not.toBe(md5(tagged));
});
