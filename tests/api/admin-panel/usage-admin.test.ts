/**
 * The admin's "Image API" page as its routes answer it: totals, per-day and per-key use, the most
 * viewed and latest images, deleting one; each behind the plugin's own permissions (an Editor sees
 * usage and images but no key, not even key entries in the Content Manager; an Author nothing). The tallies follow every upload and deletion path,
 * refused uploads leave them alone, and a database whose images predate them is filled in once.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import sharp from 'sharp';
import { png, jpeg } from '../../helpers/fixtures';
import { srcsetSnippet } from '../../../plugins/image-api/shared/contracts/serving';

const IMAGE_UID = 'plugin::image-api.image';
const KEY_UID = 'plugin::image-api.api-key';
let app: TestApp;
let admin: Record<string, string>;
let editor: Record<string, string>;
let author: Record<string, string>;
let keyA: string;
let keyB: string;

const today = () => new Date().toISOString().slice(0, 10);
/** A preset's geometry when it names only a size. */
const GEOMETRY = { resizingType: 'fit', width: 0, height: 0, dpr: 1, enlarge: false, gravity: null };

beforeAll(async () => {
  app = await startApp();
  admin = { Authorization: `Bearer ${await adminToken(app)}` };
  editor = { Authorization: `Bearer ${await adminToken(app, 'editor@img.test', 'Editor-pass-1234', 'strapi-editor')}` };
  author = { Authorization: `Bearer ${await adminToken(app, 'author@img.test', 'Author-pass-1234', 'strapi-author')}` };
  keyA = await app.createKey('usage A');
  keyB = await app.createKey('usage B');
});
afterAll(async () => {
  await app?.stop();
});

async function upload(key: string, image: Buffer, title?: string) {
  const res = await app.upload(key, image, { fields: title ? { title } : {} });
  expect(res.status).toBe(200);
  return res.body.image;
}

/** Bytes on record of the images there are: each file entry's kilobytes and its formats'. */
async function bytesOnRecord(): Promise<number> {
  const images = await app.strapi.db.query(IMAGE_UID).findMany({ populate: { file: true } });
  const bytes = (kb: unknown) => Math.round(Number(kb) * 1000);
  return images.reduce(
    (sum: number, image: any) =>
      sum + bytes(image.file.size) + Object.values(image.file.formats).reduce((s: number, f: any) => s + bytes(f.size), 0),
    0
  );
}

const overview = async (auth = admin) => {
  const res = await app.http.get('/image-api/usage/overview').set(auth);
  expect(res.status).toBe(200);
  return res.body.data;
};

test('totals, 30 days of uploads and views, the most viewed and the latest images, with their keys', async () => {
  const first = await upload(keyA, await png(300, 200), 'first');
  const second = await upload(keyA, await jpeg(640, 480), 'second');
  const third = await upload(keyB, await png(120, 90), 'third');
  // Nothing viewed yet: no "most viewed" image (the page says so), though there are images.
  expect((await overview()).topViewed).toEqual([]);
  for (let i = 0; i < 3; i++) expect((await app.http.get(app.pathOf(second.url_viewer))).status).toBe(200);
  expect((await app.http.get(app.pathOf(first.url_viewer))).status).toBe(200);

  const data = await overview();
  expect(data.totals).toEqual({ images: 3, storageBytes: await bytesOnRecord(), views: 4, uploadsInWindow: 3, viewsInWindow: 4 });
  expect(data.days).toHaveLength(30);
  expect(data.days[29]).toEqual({ day: today(), uploads: 3, views: 4, bytesAdded: await bytesOnRecord() });
  expect(data.days.slice(0, 29).every((day: { uploads: number }) => day.uploads === 0)).toBe(true);
  // Only the images viewed at least once.
  expect(data.topViewed.map((card: { idEncoded: string; views: number }) => [card.idEncoded, card.views])).toEqual([
    [second.id_encoded, 3],
    [first.id_encoded, 1],
  ]);
  expect(data.recent.map((card: { title: string }) => card.title)).toEqual(['third', 'second', 'first']);
  expect(data.recent[0]).toEqual({
    idEncoded: expect.any(String),
    documentId: expect.any(String),
    title: 'third',
    originalFilename: 'a.png',
    views: 0,
    createdAt: expect.any(String),
    expiresAt: null,
    thumbUrl: expect.stringMatching(/^\/uploads\/.+\.th\.png$/),
    viewerUrl: expect.stringMatching(/\/image\/\w+$/),
    url: expect.stringMatching(/^http:\/\/img\.test:1337\/uploads\/.+\.png$/),
    width: 120,
    height: 90,
    placeholder: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/),
    dominantColor: expect.stringMatching(/^#[0-9a-f]{6}$/),
    key: { id: expect.any(Number), name: 'usage B' },
  });
  expect(data.recent[0].placeholder).toBe(third.placeholder);
  expect(data.recent[0].dominantColor).toBe(third.dominant_color);
  expect(data.permissions).toEqual({ keys: true, reveal: true, deleteImages: true });
  // Ready-made transformation URLs for the cards (shared/contracts/serving.ts).
  expect(data.serving).toEqual({
    transformBase: 'http://img.test:1337/img',
    presets: [
      // Each with the geometry delivery reads in it: the srcset's descriptors are the widths it renders.
      { name: 'thumbnail', definition: 'rs:fit:245:156', width: 245, geometry: { ...GEOMETRY, width: 245, height: 156 } },
      { name: 'small', definition: 'w:500', width: 500, geometry: { ...GEOMETRY, width: 500 } },
      { name: 'medium', definition: 'w:750', width: 750, geometry: { ...GEOMETRY, width: 750 } },
      { name: 'large', definition: 'w:1000', width: 1000, geometry: { ...GEOMETRY, width: 1000 } },
      { name: 'xlarge', definition: 'w:1920', width: 1920, geometry: { ...GEOMETRY, width: 1920 } },
    ],
  });
  const serving = await app.http.get('/image-api/serving').set(admin);
  expect([serving.status, serving.body.data]).toEqual([200, data.serving]);
  expect((await app.http.get('/image-api/serving')).status).toBe(401);
});

test("each srcset descriptor is the width its URL renders: a 4:3 image's thumbnail preset is 208 wide, not 245", async () => {
  const data = await overview();
  const card = data.recent.find((image: { title: string }) => image.title === 'second');
  expect([card.width, card.height]).toEqual([640, 480]);
  const snippet = srcsetSnippet(data.serving, { url: card.url, width: card.width, height: card.height, alt: card.title })!;
  const candidates = [...snippet.matchAll(/(http\S+) (\d+)w/g)].map((match) => ({ url: match[1], descriptor: Number(match[2]) }));
  // thumbnail (208), small (500) and the image itself (640): medium and up would enlarge it.
  expect(candidates.map(({ descriptor }) => descriptor)).toEqual([208, 500, 640]);
  for (const { url, descriptor } of candidates) {
    const res = await app.http.get(app.pathOf(url)).buffer(true).parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect([url, res.status]).toEqual([url, 200]);
    expect([url, (await sharp(res.body as Buffer).metadata()).width]).toEqual([url, descriptor]);
  }
});

test("each key's status and use; one key's days", async () => {
  const entryB = await app.strapi.db.query(KEY_UID).findOne({ where: { name: 'usage B' } });
  await app.strapi.db.query(KEY_UID).update({ where: { id: entryB.id }, data: { active: false } });
  const res = await app.http.get('/image-api/usage/keys').set(admin);
  expect(res.status).toBe(200);
  const byName = Object.fromEntries(res.body.data.map((key: { name: string }) => [key.name, key]));
  expect(byName['usage A']).toMatchObject({ status: 'active', uploads: 2, uploadsInWindow: 2, prefix: keyA.slice(0, 8), last4: keyA.slice(-4) });
  expect(byName['usage A'].lastUsedAt).toEqual(expect.any(String));
  expect(byName['usage B']).toMatchObject({ status: 'revoked', uploads: 1, uploadsInWindow: 1 });
  // What each key holds against its quotas (none set): every stored file's bytes.
  const heldBytes = Number((await app.strapi.db.connection('image_api_keys').where('name', 'usage A').first('live_bytes')).live_bytes);
  expect(heldBytes).toBeGreaterThan(0);
  expect(byName['usage A'].holding).toEqual({ images: 2, bytes: heldBytes, quotaImages: null, quotaBytes: null });
  expect(JSON.stringify(res.body)).not.toContain(keyA);

  const days = await app.http.get(`/image-api/usage/keys/${byName['usage A'].documentId}?days=7`).set(admin);
  expect(days.status).toBe(200);
  expect(days.body.data).toHaveLength(7);
  expect(days.body.data[6]).toMatchObject({ day: today(), uploads: 2, views: 4 });
  expect((await app.http.get('/image-api/usage/keys/nope').set(admin)).status).toBe(404);

  // The key entry's side panel: its holding, with the caps an admin set.
  await app.strapi.db.query(KEY_UID).update({ where: { name: 'usage A' }, data: { quota_images: 10, quota_bytes: 5_000_000 } });
  const holding = await app.http.get(`/image-api/api-keys/${byName['usage A'].documentId}/holding`).set(admin);
  expect([holding.status, holding.body.data]).toEqual([200, { images: 2, bytes: heldBytes, quotaImages: 10, quotaBytes: 5_000_000 }]);
  expect((await app.http.get('/image-api/api-keys/nope/holding').set(admin)).status).toBe(404);
  expect((await app.http.get(`/image-api/api-keys/${byName['usage A'].documentId}/holding`).set(editor)).status).toBe(403);
  await app.strapi.db.query(KEY_UID).update({ where: { name: 'usage A' }, data: { quota_images: null, quota_bytes: null } });
  await app.strapi.db.query(KEY_UID).update({ where: { id: entryB.id }, data: { active: true } });
});

test('an Editor sees usage and images but no key; an Author sees nothing', async () => {
  const data = await overview(editor);
  expect(data.totals.images).toBe(3);
  expect(data.recent.every((card: { key: unknown }) => card.key === null)).toBe(true);
  expect(data.permissions).toEqual({ keys: false, reveal: false, deleteImages: false });
  const entry = await app.strapi.db.query(KEY_UID).findOne({ where: { name: 'usage A' } });
  for (const path of ['/image-api/usage/keys', `/image-api/usage/keys/${entry.documentId}`, `/image-api/api-keys/${entry.documentId}/key`, `/image-api/api-keys/${entry.documentId}/client-config/sharex`]) {
    expect([path, (await app.http.get(path).set(editor)).status]).toEqual([path, 403]);
  }
  expect((await app.http.delete(`/image-api/images/${data.recent[0].idEncoded}`).set(editor)).status).toBe(403);
  // Key entries are credentials, not content: not in the Editor's Content Manager either, while images are.
  expect((await app.http.get(`/content-manager/collection-types/${KEY_UID}`).set(editor)).status).toBe(403);
  expect((await app.http.get(`/content-manager/collection-types/${KEY_UID}`).set(author)).status).toBe(403);
  expect((await app.http.get(`/content-manager/collection-types/${IMAGE_UID}`).set(editor)).status).toBe(200);
  expect((await app.http.get(`/content-manager/collection-types/${KEY_UID}`).set(admin)).status).toBe(200);
  expect((await app.http.get('/image-api/usage/overview').set(author)).status).toBe(403);
  expect((await app.http.get('/image-api/usage/overview')).status).toBe(401);
});

test('a refused upload changes no tally; deleting from the page, by the API and in the Media Library takes the image off', async () => {
  const before = await overview();
  const refused = await app.upload(keyA, Buffer.from('not an image'), { filename: 'x.png' });
  expect(refused.status).toBe(400);
  expect((await overview()).totals).toEqual(before.totals);

  const [third, second, first] = before.recent;
  expect((await app.http.delete(`/image-api/images/${third.idEncoded}`).set(admin)).status).toBe(204);
  expect((await app.http.get(`/image/${third.idEncoded}`)).status).toBe(404);
  expect((await app.http.delete(`/image-api/images/${third.idEncoded}`).set(admin)).status).toBe(404);

  const record = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: second.idEncoded }, populate: { file: true } });
  const bulk = await app.http.post('/upload/actions/bulk-delete').set(admin).send({ fileIds: [record.file.id], folderIds: [] });
  expect(bulk.status).toBe(200);

  const after = await overview();
  expect(after.totals).toMatchObject({ images: 1, storageBytes: await bytesOnRecord(), uploadsInWindow: 3 });
  expect(after.recent.map((card: { idEncoded: string }) => card.idEncoded)).toEqual([first.idEncoded]);
});

test("a deleted image's views leave the Views total with it: no views beside \"No image has been viewed yet\"", async () => {
  /** The views of the images there are, as the database holds them. */
  const liveViews = async () =>
    (await app.strapi.db.query(IMAGE_UID).findMany({ select: ['views'] })).reduce((sum: number, image: { views: number }) => sum + Number(image.views), 0);
  const start = await overview();
  expect(start.totals.views).toBe(await liveViews());
  const viewed = [await upload(keyA, await png(70, 70), 'viewed, then deleted on the page'), await upload(keyB, await png(72, 72), 'viewed, then deleted in the Media Library')];
  for (const image of viewed) for (let i = 0; i < 3; i++) expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(200);
  const seen = await overview();
  expect(seen.totals.views).toBe(start.totals.views + 6);
  expect(seen.topViewed.map((card: { idEncoded: string }) => card.idEncoded)).toEqual(expect.arrayContaining(viewed.map((image) => image.id_encoded)));

  expect((await app.http.delete(`/image-api/images/${viewed[0].id_encoded}`).set(admin)).status).toBe(204);
  const record = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: viewed[1].id_encoded }, populate: { file: true } });
  expect((await app.http.post('/upload/actions/bulk-delete').set(admin).send({ fileIds: [record.file.id], folderIds: [] })).status).toBe(200);

  const after = await overview();
  expect(after.totals.views).toBe(start.totals.views);
  expect(after.totals.views).toBe(await liveViews());
  expect(after.totals.views).toBe(after.topViewed.reduce((sum: number, card: { views: number }) => sum + card.views, 0));
  // The chart keeps the day's history: the views happened.
  expect(after.totals.viewsInWindow).toBe(seen.totals.viewsInWindow);
});

test("an app whose roles predate the plugin: the Editor's and Author's key-entry permissions go once, an admin's later grant stays", async () => {
  const editorRole = await app.strapi.db.query('admin::role').findOne({ where: { code: 'strapi-editor' } });
  const grant = () =>
    app.strapi.service('admin::permission').createMany([
      { action: 'plugin::content-manager.explorer.read', actionParameters: {}, subject: KEY_UID, properties: { fields: ['name'] }, conditions: [], role: editorRole.id },
    ]);
  const held = () => app.strapi.db.query('admin::permission').count({ where: { subject: KEY_UID, role: { id: editorRole.id } } });
  await grant();
  expect(await held()).toBe(1);
  const store = app.strapi.store({ type: 'plugin', name: 'image-api', key: 'key-entries-withdrawn' });
  // As at the first boot of a plugin version that withdraws them.
  await store.delete({});
  const { withdrawKeyEntriesFromDefaultRoles } = require('../../../plugins/image-api/dist/server/src/admin/admin-permissions');
  await withdrawKeyEntriesFromDefaultRoles(app.strapi);
  expect(await held()).toBe(0);
  // Given back by an admin afterwards: the next boot leaves it.
  await grant();
  await withdrawKeyEntriesFromDefaultRoles(app.strapi);
  expect(await held()).toBe(1);
});
