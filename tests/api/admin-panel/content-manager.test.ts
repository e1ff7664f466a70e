/**
 * What editors see of an API image in the Content Manager: its expiry, the key it came with, its views
 * and its album; never the delete link's hash or the sweep's bookkeeping. Deleting its file in the
 * Media Library deletes the record and every row that linked them.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';
import { NOTHING, tracesOf } from '../../helpers/leftovers';

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
  const res = await app.upload(key, await png(60, 40), { fields });
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

const KEY_UID = 'plugin::image-api.api-key';
const configurationOf = async (uid: string) => {
  const res = await app.http.get(`/content-manager/content-types/${uid}/configuration`).set(auth);
  expect(res.status).toBe(200);
  return res.body.data.contentType;
};
const editFieldsOf = (configuration: { layouts: { edit: Array<Array<{ name: string }>> } }) =>
  configuration.layouts.edit.flat().map((field) => field.name);

test("the key list shows the columns that matter, under human headings; the edit view's server fields are read-only", async () => {
  const configuration = await configurationOf(KEY_UID);
  expect(configuration.layouts.list).toEqual(['name', 'active', 'key_prefix', 'key_last4', 'expires_at', 'last_used_at', 'upload_count', 'live_images']);
  const headings = configuration.layouts.list.map((field: string) => configuration.metadatas[field].list.label);
  expect(headings).toEqual(['Name', 'Active', 'Key starts', 'Key ends', 'Expires', 'Last used', 'Uploads', 'Images']);
  expect(configuration.settings).toMatchObject({ mainField: 'name', defaultSortBy: 'createdAt', defaultSortOrder: 'DESC' });

  const edit = configuration.metadatas;
  for (const field of ['key_prefix', 'key_last4', 'last_used_at', 'upload_count', 'images', 'live_images', 'live_bytes']) {
    expect([field, edit[field].edit.editable]).toEqual([field, false]);
  }
  for (const field of ['name', 'description', 'contact', 'active', 'expires_at', 'rate_limit', 'default_expiration', 'folder', 'owner', 'duplicates', 'quota_images', 'quota_bytes']) {
    expect([field, edit[field].edit.editable]).toEqual([field, true]);
  }
  // No snake_case left in a label, and the rate limit says its format.
  for (const field of editFieldsOf(configuration)) expect([field, edit[field].edit.label]).not.toEqual([field, expect.stringMatching(/_/)]);
  expect(edit.rate_limit.edit).toMatchObject({ label: 'Rate limit', placeholder: '100/minute,2000/day' });
  expect(edit.rate_limit.edit.description).toMatch(/"100\/minute,2000\/day"; or "off"/);
  expect(edit.owner_user.edit.label).toBe('Owner (site user)');
  // A revoked key gets 403, as the hint says (it once said 401).
  expect(edit.active.edit.description).toBe('Off: every request with the key is refused (403, "API key revoked") at once.');
  expect(editFieldsOf(configuration)).toEqual([
    'name', 'active', 'description', 'contact', 'expires_at', 'rate_limit', 'default_expiration', 'folder',
    'owner', 'owner_user', 'key_prefix', 'key_last4', 'duplicates', 'moderation', 'moderation_threshold', 'quota_images', 'quota_bytes', 'live_images', 'live_bytes',
    'last_used_at', 'upload_count', 'images',
  ]);
});

test('the image list shows the thumbnail, title, id, key, views and expiry; the EXIF editor is left out', async () => {
  const configuration = await configurationOf(IMAGE_UID);
  expect(configuration.layouts.list).toEqual(['file', 'label', 'id_encoded', 'api_key', 'views', 'expires_at', 'createdAt']);
  expect(configuration.settings.mainField).toBe('label');
  expect(configuration.metadatas.label.list.label).toBe('Title or file name');
  expect(configuration.metadatas.api_key.list.label).toBe('Key');
  expect(configuration.metadatas.api_key.edit.mainField).toBe('name');
  expect(editFieldsOf(configuration)).not.toContain('original_exifdata');
  expect(configuration.metadatas.original_exifdata.edit.visible).toBe(false);
  const editable = Object.fromEntries(editFieldsOf(configuration).map((field) => [field, configuration.metadatas[field].edit.editable]));
  expect(editable).toEqual({
    file: false, title: true, description: true, nsfw: true, expires_at: true, views: false, id_encoded: false, name: false,
    md5: false, original_filename: false, api_key: false, owner: false, album: false, owner_user: false,
    placeholder: false, dominant_color: false, moderation: false, nsfw_score: false, review_since: false, report_count: false,
  });
});

test("an admin's own changes to the view stay across boots; a new version of the plugin's view replaces them", async () => {
  const configuration = await configurationOf(KEY_UID);
  const { uid: _uid, ...body } = configuration;
  const changed = { ...body, layouts: { ...body.layouts, list: ['name', 'contact'] } };
  delete (changed as { options?: unknown }).options;
  // As the admin's "Configure the view" sends it: the GET adds each relation's main field to `list`.
  for (const metadata of Object.values(changed.metadatas as Record<string, { list: { mainField?: unknown } }>)) delete metadata.list.mainField;
  const put = await app.http.put(`/content-manager/content-types/${KEY_UID}/configuration`).set(auth).send(changed);
  expect([put.status, put.body.error]).toEqual([200, undefined]);
  const layout = app.strapi.plugin('image-api').service('content-manager-layout');
  await layout.apply(); // as at the next boot
  expect((await configurationOf(KEY_UID)).layouts.list).toEqual(['name', 'contact']);

  // As if this app had an older version of the plugin's view.
  await app.strapi.store({ type: 'plugin', name: 'image-api', key: 'content-manager-layout' }).set({ value: { version: 0 } });
  await layout.apply();
  expect((await configurationOf(KEY_UID)).layouts.list).toEqual(['name', 'active', 'key_prefix', 'key_last4', 'expires_at', 'last_used_at', 'upload_count', 'live_images']);
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

test('an entry is named by its title, else the client\'s file name: in the Content Manager and on the home page', async () => {
  const untitled = await upload();
  const row = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: untitled.id_encoded } });
  const cm = `/content-manager/collection-types/${IMAGE_UID}`;
  expect((await app.http.get(`${cm}/${row.documentId}`).set(auth)).body.data.label).toBe('a.png');
  const recent = async () => {
    const res = await app.http.get('/content-manager/homepage/recent-documents').query({ action: 'update' }).set(auth);
    expect(res.status).toBe(200);
    return res.body.data.find((entry: { documentId: string }) => entry.documentId === row.documentId);
  };
  expect((await recent())?.title).toBe('a.png');
  // A title given in the Content Manager names it; emptied, the file name does again; the label
  // itself is not the editor's to set.
  expect((await app.http.put(`${cm}/${row.documentId}`).set(auth).send({ title: 'Harbour', label: 'forged' })).status).toBe(200);
  expect((await app.http.get(`${cm}/${row.documentId}`).set(auth)).body.data.label).toBe('Harbour');
  expect((await recent())?.title).toBe('Harbour');
  expect((await app.http.put(`${cm}/${row.documentId}`).set(auth).send({ title: '' })).status).toBe(200);
  expect((await app.http.get(`${cm}/${row.documentId}`).set(auth)).body.data.label).toBe('a.png');
  // Uploaded with a title: named by it.
  const titled = await upload({ title: 'Quay' });
  expect((await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: titled.id_encoded } })).label).toBe('Quay');
});

test('images stored before labels existed are named once, at boot', async () => {
  const [titled, untitled] = [await upload({ title: 'Old title' }), await upload()];
  await app.strapi.db.connection('image_api_images').whereIn('id_encoded', [titled.id_encoded, untitled.id_encoded]).update({ label: null });
  await app.strapi.store({ type: 'plugin', name: 'image-api', key: 'labels-filled' }).delete({});
  const images = app.strapi.plugin('image-api').service('images');
  expect(await images.fillLabels()).toBe(2);
  const labels = await app.strapi.db.connection('image_api_images').whereIn('id_encoded', [titled.id_encoded, untitled.id_encoded]).orderBy('id').pluck('label');
  expect(labels).toEqual(['Old title', 'a.png']);
  expect(await images.fillLabels()).toBe(0);
});

test('an API image cannot be made by hand: no role holds "Create" on them (no button, no Duplicate), and the server refuses it anyway', async () => {
  const before = await app.strapi.db.query(IMAGE_UID).count();
  const res = await app.http.post(`/content-manager/collection-types/${IMAGE_UID}`).set(auth).send({ title: 'hand-made', id_encoded: 'Hand1', name: 'hand', md5: 'x' });
  expect(res.status).toBe(403);
  // The Super Admin's own permissions, as the panel reads them to show "Create new entry".
  const mine = await app.http.get('/admin/users/me/permissions').set(auth);
  const onImages = mine.body.data.filter((permission: { subject: string }) => permission.subject === IMAGE_UID).map((permission: { action: string }) => permission.action);
  expect(onImages).toEqual(expect.arrayContaining(['plugin::content-manager.explorer.read', 'plugin::content-manager.explorer.update', 'plugin::content-manager.explorer.delete']));
  expect(onImages).not.toContain('plugin::content-manager.explorer.create');
  // Code going through the document service meets the plugin's own refusal.
  await expect(app.strapi.documents(IMAGE_UID).create({ data: { title: 'hand-made' } } as never)).rejects.toThrow(/made by uploads through the API/);
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

// Only the record went, once: the viewer answered 404 but the files stayed public (issue 23, item 5).
describe('deleting an API image in the Content Manager deletes all of it', () => {
  const documentIdOf = async (image: { id_encoded: string }) =>
    (await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: image.id_encoded }, select: ['documentId'] })).documentId;
  const expectGone = async (image: { name: string; url: string; url_viewer: string; thumb: { url: string }; medium: { url: string } }) => {
    expect(await tracesOf(app, image.name)).toEqual(NOTHING);
    for (const url of [image.url, image.thumb.url, image.medium.url, image.url_viewer]) {
      expect([url, (await app.http.get(app.pathOf(url))).status]).toEqual([url, 404]);
    }
  };

  test('one entry: its files, its Media Library entry, its record and its links', async () => {
    const image = await upload();
    expect((await app.http.get(app.pathOf(image.url))).status).toBe(200);
    const res = await app.http.delete(`/content-manager/collection-types/${IMAGE_UID}/${await documentIdOf(image)}`).set(auth);
    expect(res.status).toBe(200);
    await expectGone(image);
  });

  test('a bulk delete of several: each goes whole, once the bulk transaction commits', async () => {
    const images = [await upload(), await upload()];
    const documentIds = await Promise.all(images.map(documentIdOf));
    const res = await app.http.post(`/content-manager/collection-types/${IMAGE_UID}/actions/bulkDelete`).set(auth).send({ documentIds });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 2 });
    // Removed after the Content Manager's transaction commits: polled briefly.
    const settled = async () => (await Promise.all(images.map((image) => tracesOf(app, image.name)))).every((t) => t.files.length + t.journalRows === 0);
    for (let i = 0; i < 50 && !(await settled()); i++) await new Promise((r) => setTimeout(r, 50));
    for (const image of images) await expectGone(image);
  });
});
