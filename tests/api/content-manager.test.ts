/**
 * What editors see of an API image in the Content Manager: its expiry, the key it came with, its views
 * and its album; never the delete link's hash or the sweep's bookkeeping. Deleting its file in the
 * Media Library deletes the record and every row that linked them.
 */
import { startApp, type TestApp } from '../helpers/app';
import { adminToken } from '../helpers/admin';
import { png } from '../helpers/fixtures';
import { NOTHING, tracesOf } from '../helpers/leftovers';

const IMAGE_UID = 'plugin::image-api.image';
let app: TestApp;
let auth: Record<string, string>;
let key: string;

beforeAll(async () => {
  app = await startApp();
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
  key = await app.createKey('shown to editors');
});
afterAll(async () => {
  await app?.stop();
});

async function upload(fields: Record<string, string> = {}) {
  let req = app.http.post('/api/1/upload').set('X-API-Key', key);
  for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
  const res = await req.attach('source', await png(60, 40), 'a.png');
  expect(res.status).toBe(200);
  return res.body.image;
}

test('the edit view lays out expiry, key, views and album; never the hash or the claims', async () => {
  const res = await app.http.get(`/content-manager/content-types/${IMAGE_UID}/configuration`).set(auth);
  expect(res.status).toBe(200);
  const edit: string[] = res.body.data.contentType.layouts.edit.flat().map((field: { name: string }) => field.name);
  for (const field of ['expires_at', 'api_key', 'views', 'album', 'file', 'title']) expect(edit).toContain(field);
  for (const field of ['delete_hash', 'expiry_claim', 'expiry_claimed_at']) expect(edit).not.toContain(field);
});

test('an image record as the Content Manager gives it: expiry and views; its key and album as relations', async () => {
  const image = await upload({ expiration: 'P1D' });
  await app.http.get(app.pathOf(image.url_viewer));
  const record = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: image.id_encoded } });
  const res = await app.http.get(`/content-manager/collection-types/${IMAGE_UID}/${record.documentId}`).set(auth);
  expect(res.status).toBe(200);
  expect(new Date(res.body.data.expires_at).toISOString().slice(0, 19).replace('T', ' ')).toBe(image.expiration_date_gmt);
  expect(Number(res.body.data.views)).toBe(1);
  expect(res.body.data).not.toHaveProperty('delete_hash');

  const related = async (field: string) =>
    (await app.http.get(`/content-manager/relations/${IMAGE_UID}/${record.documentId}/${field}`).set(auth)).body.results;
  expect((await related('api_key')).map((entry: { name: string }) => entry.name)).toEqual(['shown to editors']);
  expect((await related('album')).map((entry: { name: string }) => entry.name)).toEqual(['API uploads']);
});

test("a key's edit view lists its images (the relation both entries name)", async () => {
  const image = await upload();
  const entry = await app.strapi.db.query('plugin::image-api.api-key').findOne({ where: { name: 'shown to editors' }, select: ['documentId'] });
  const res = await app.http.get(`/content-manager/relations/plugin::image-api.api-key/${entry.documentId}/images`).set(auth);
  expect(res.status).toBe(200);
  // Each listed by its main field, the id_encoded.
  expect(res.body.results.map((r: { id_encoded: string }) => r.id_encoded)).toContain(image.id_encoded);
  // And from the image's side, its key.
  const row = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: image.id_encoded }, select: ['documentId'] });
  const key = await app.http.get(`/content-manager/relations/${IMAGE_UID}/${row.documentId}/api_key`).set(auth);
  expect(key.status).toBe(200);
  expect(key.body.results).toEqual([expect.objectContaining({ name: 'shown to editors' })]);
});

test('editors may change a title, description, NSFW flag and expiry; the upload\'s own fields stay as stored', async () => {
  const image = await upload();
  const row = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: image.id_encoded } });
  const cm = `/content-manager/collection-types/${IMAGE_UID}`;
  const res = await app.http
    .put(`${cm}/${row.documentId}`)
    .set(auth)
    .send({ title: 'Renamed', id_encoded: 'HACKED', md5: '0'.repeat(32), views: '12345', name: 'other-name', original_filename: 'x.png' });
  expect(res.status).toBe(200);
  const after = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id: row.id } });
  expect(after).toMatchObject({ title: 'Renamed', id_encoded: image.id_encoded, md5: image.md5, name: image.name, original_filename: 'a.png' });
  expect(String(after.views)).toBe('0');
  expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(200);
});

test('an API image cannot be made by hand (it would be a record without a file)', async () => {
  const before = await app.strapi.db.query(IMAGE_UID).count();
  const res = await app.http.post(`/content-manager/collection-types/${IMAGE_UID}`).set(auth).send({ title: 'hand-made', id_encoded: 'Hand1', name: 'hand', md5: 'x' });
  expect(res.status).toBe(400);
  expect(res.body.error.message).toMatch(/made by uploads through the API/);
  expect(await app.strapi.db.query(IMAGE_UID).count()).toBe(before);
});

test('deleting the file in the Media Library deletes the record and every row that linked them', async () => {
  const image = await upload();
  const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
  const res = await app.http.post('/upload/actions/bulk-delete').set(auth).send({ fileIds: [file.id], folderIds: [] });
  expect(res.status).toBe(200);
  expect(await tracesOf(app, image.name)).toEqual(NOTHING);
  expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(404);
});
