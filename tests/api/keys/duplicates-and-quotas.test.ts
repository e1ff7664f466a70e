/**
 * Per key (docs/api.md, "Duplicates and quotas"): what an upload of bytes the key stored before does (`duplicates`: store,
 * reuse, refuse with 409/101), and caps on its live images (`quota_images`, `quota_bytes`: 403/105),
 * exact when uploads race, given back by deletions and expiry.
 */
import fs from 'fs';
import { useApp } from '../../helpers/app';
import { jpeg, png } from '../../helpers/fixtures';
import { expectUploadJson } from '../../helpers/image-json';
import { NOTHING, tracesOf } from '../../helpers/leftovers';

const app = useApp();
const KEY_UID = 'plugin::image-api.api-key';

let made = 0;
/** A key with these settings; returns the key and its entry's id. */
async function keyWith(settings: { duplicates?: string; quotaBytes?: number; quotaImages?: number }) {
  const { key, entry } = await app.strapi.plugin('image-api').service('api-keys').create({ name: `dq key ${++made}`, ...settings });
  return { key, id: entry.id as number };
}

/** A picture of its own (its bytes differ from every other one's). */
const picture = (seed: number) => png(40 + seed, 30);

const keyRow = (id: number) =>
  app.strapi.db.connection('image_api_keys').where('id', id).first('live_images', 'live_bytes', 'upload_count');
const imagesOf = async (id: number) =>
  Number((await app.strapi.db.connection('image_api_images_api_key_lnk').where('api_key_id', id).count({ n: '*' }))[0].n);
const newFiles = (before: Set<string>) => fs.readdirSync(app.uploadsDir).filter((f) => !before.has(f));

describe('duplicates', () => {
  test('store (the default): the same bytes twice are two images', async () => {
    const { key, id } = await keyWith({});
    const bytes = await picture(1);
    const [a, b] = [(await app.upload(key, bytes)).body.image, (await app.upload(key, bytes)).body.image];
    expect(a.id_encoded).not.toBe(b.id_encoded);
    expect(await imagesOf(id)).toBe(2);
  });

  test('reuse: the earlier image answers again, stored nothing, counted once; its delete link still works', async () => {
    const { key, id } = await keyWith({ duplicates: 'reuse' });
    const bytes = await picture(2);
    const first = expectUploadJson((await app.upload(key, bytes, { filename: 'one.png' })).body, { extension: 'png', mime: 'image/png' });
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const res = await app.upload(key, bytes, { filename: 'two.png', fields: { title: 'another title' } });
    expect(res.status).toBe(200);
    const again = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
    const { how_long_ago: _a, ...firstRest } = first;
    const { how_long_ago: _b, ...againRest } = again;
    expect(againRest).toEqual(firstRest);
    expect(newFiles(before)).toEqual([]);
    expect(await imagesOf(id)).toBe(1);
    expect(await keyRow(id)).toMatchObject({ live_images: 1, upload_count: 1 });
    // The same bytes from another key are that key's own image.
    const other = await keyWith({ duplicates: 'reuse' });
    expect((await app.upload(other.key, bytes)).body.image.id_encoded).not.toBe(first.id_encoded);
    // The link the reused answer gave deletes the image; then the bytes are new again.
    expect((await app.http.post(app.pathOf(again.delete_url))).status).toBe(200);
    expect(await tracesOf(app, first.name)).toEqual(NOTHING);
    const third = (await app.upload(key, bytes)).body.image;
    expect(third.id_encoded).not.toBe(first.id_encoded);
  });

  test('refuse: 409/101 naming the earlier image, nothing left', async () => {
    const { key, id } = await keyWith({ duplicates: 'refuse' });
    const bytes = await jpeg(64, 48);
    const first = (await app.upload(key, bytes, { filename: 'a.jpg' })).body.image;
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const res = await app.upload(key, bytes, { filename: 'b.jpg' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      status_code: 409,
      error: { message: `Duplicated upload: ${first.url_viewer}`, code: 101 },
      status_txt: 'Conflict',
    });
    expect(newFiles(before)).toEqual([]);
    expect(await imagesOf(id)).toBe(1);
    // Different bytes are welcome.
    expect((await app.upload(key, await jpeg(64, 49), { filename: 'c.jpg' })).status).toBe(200);
  });

  test('an expired image (not swept yet) is no longer live: the same bytes are stored anew', async () => {
    const { key } = await keyWith({ duplicates: 'reuse' });
    const bytes = await picture(3);
    const first = (await app.upload(key, bytes)).body.image;
    await app.strapi.db.connection('image_api_images').where('id_encoded', first.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
    const res = await app.upload(key, bytes);
    expect(res.status).toBe(200);
    expect(res.body.image.id_encoded).not.toBe(first.id_encoded);
  });

  test.each(['reuse', 'refuse'])('%s: six identical uploads at once store one image', async (mode) => {
    const { key, id } = await keyWith({ duplicates: mode });
    const bytes = await jpeg(300 + (mode === 'reuse' ? 1 : 2), 200);
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => app.upload(key, bytes, { filename: `same-${i}.jpg` })));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual(mode === 'reuse' ? [200, 200, 200, 200, 200, 200] : [200, 409, 409, 409, 409, 409]);
    const stored = answers.filter((res) => res.status === 200).map((res) => res.body.image.id_encoded);
    expect(new Set(stored).size).toBe(1);
    if (mode === 'refuse') for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.code).toBe(101);
    expect(await imagesOf(id)).toBe(1);
    const name = answers.find((res) => res.status === 200)!.body.image.name;
    expect(newFiles(before).sort()).toEqual([`${name}.jpg`, `${name}.md.jpg`, `${name}.th.jpg`].sort());
    expect(await keyRow(id)).toMatchObject({ live_images: 1, upload_count: 1 });
  });
});

describe('quotas', () => {
  test('quota_images: past it 403/105, nothing left; a deletion gives the place back', async () => {
    const { key, id } = await keyWith({ quotaImages: 2 });
    const first = (await app.upload(key, await picture(10))).body.image;
    expect((await app.upload(key, await picture(11))).status).toBe(200);
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const res = await app.upload(key, await picture(12));
    expect([res.status, res.body.error]).toEqual([403, { code: 105, message: 'Quota exceeded: at most 2 images for this key' }]);
    expect(newFiles(before)).toEqual([]);
    expect(await keyRow(id)).toMatchObject({ live_images: 2 });
    expect((await app.http.post(app.pathOf(first.delete_url))).status).toBe(200);
    expect(await keyRow(id)).toMatchObject({ live_images: 1 });
    expect((await app.upload(key, await picture(12))).status).toBe(200);
  });

  test('quota_bytes counts every stored file; past it 403/105 after the image work, nothing left', async () => {
    const probe = await keyWith({});
    const bytes = await picture(20);
    await app.upload(probe.key, bytes);
    const one = Number((await keyRow(probe.id)).live_bytes);
    expect(one).toBeGreaterThan(bytes.length);
    const { key, id } = await keyWith({ quotaBytes: one + 10 });
    expect((await app.upload(key, bytes)).status).toBe(200);
    expect(Number((await keyRow(id)).live_bytes)).toBe(one);
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const res = await app.upload(key, await picture(21));
    expect([res.status, res.body.error.code]).toEqual([403, 105]);
    expect(res.body.error.message).toMatch(/^Quota exceeded: at most \d+(\.\d)? KB of images for this key$/);
    expect(newFiles(before)).toEqual([]);
    expect(Number((await keyRow(id)).live_bytes)).toBe(one);
  });

  test('six uploads racing for the last place: one wins, five get 403/105', async () => {
    const { key, id } = await keyWith({ quotaImages: 3 });
    await app.upload(key, await picture(30));
    await app.upload(key, await picture(31));
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const answers = await Promise.all(Array.from({ length: 6 }, async (_, i) => app.upload(key, await jpeg(200 + i, 100))));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 403, 403, 403, 403, 403]);
    expect(await keyRow(id)).toMatchObject({ live_images: 3, upload_count: 3 });
    expect(await imagesOf(id)).toBe(3);
    expect(newFiles(before)).toHaveLength(3);
  });

  test('expiry gives the room back', async () => {
    const { key, id } = await keyWith({ quotaImages: 1 });
    const image = (await app.upload(key, await picture(40))).body.image;
    expect((await app.upload(key, await picture(41))).status).toBe(403);
    await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
    await app.strapi.plugin('image-api').service('expiry-sweep').run();
    expect(await keyRow(id)).toMatchObject({ live_images: 0, live_bytes: expect.anything() });
    expect(Number((await keyRow(id)).live_bytes)).toBe(0);
    expect((await app.upload(key, await picture(41))).status).toBe(200);
  });

  test('a quota of 0 or a fraction is not saved', async () => {
    const query = app.strapi.db.query(KEY_UID);
    const { id } = await keyWith({});
    await expect(query.update({ where: { id }, data: { quota_images: 0 } })).rejects.toThrow(/Quota \(images\): a whole number from 1/);
    await expect(query.update({ where: { id }, data: { quota_bytes: 1.5 } })).rejects.toThrow(/Quota \(bytes\): a whole number from 1/);
  });
});
