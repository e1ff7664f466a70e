/**
 * Albums are Media Library folders (docs/api.md, "Albums"): a key uploads to its destination folder
 * (its entry's, else the plugin's) or to a folder below it given as `album_id`; anything else is 160;
 * `/api/1/albums` lists the folders a key may upload to.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';

const KEY_UID = 'plugin::image-api.api-key';
let app: TestApp;
let auth: Record<string, string>;
let picture: Buffer;

beforeAll(async () => {
  app = await startApp();
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
  picture = await png(40, 40);
});
afterAll(async () => {
  await app?.stop();
});

const folders = () => app.strapi.plugin('upload').service('folder');
const folderNamed = (name: string, parent: number | null) => folders().create({ name, parent });
const pluginFolder = () => app.strapi.db.query('plugin::upload.folder').findOne({ where: { name: 'API uploads', parent: null } });
const folderOf = async (image: any) =>
  (await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name }, populate: { folder: true } })).folder;
const upload = (key: string, fields: Record<string, string> = {}) => app.upload(key, picture, { fields });
const albums = (key: string) => app.http.get('/api/1/albums').query({ key });

async function keyWithFolder(name: string, folderId: number) {
  const res = await app.http.post(`/content-manager/collection-types/${KEY_UID}`).set(auth).send({ name, folder: { connect: [{ id: folderId }] } });
  expect(res.status).toBe(201);
  return (await app.http.get(`/image-api/api-keys/${res.body.data.documentId}/key`).set(auth)).body.data.key as string;
}

describe('a key with no folder of its own', () => {
  let key: string;
  let cats: any;
  let kittens: any;
  let elsewhere: any;
  beforeAll(async () => {
    key = await app.createKey();
    const base = await pluginFolder();
    cats = await folderNamed('Cats', base.id);
    kittens = await folderNamed('Kittens', cats.id);
    elsewhere = await folderNamed('Elsewhere', null);
  });

  test('uploads go to the plugin\'s folder, or to an album below it; the record shows its album', async () => {
    const plain = (await upload(key)).body.image;
    expect((await folderOf(plain)).name).toBe('API uploads');
    for (const album of [cats, kittens]) {
      const res = await upload(key, { album_id: String(album.id) });
      expect(res.status).toBe(200);
      const folder = await folderOf(res.body.image);
      expect(folder.id).toBe(album.id);
      const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: res.body.image.id_encoded }, populate: { album: true } });
      expect(record.album.id).toBe(album.id);
      const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: res.body.image.name } });
      expect(file.folderPath).toBe(album.path);
    }
  });

  test.each([
    ['a folder outside', () => String(elsewhere.id)],
    ['an unknown folder', () => '999999'],
    ['not a number', () => 'cats'],
    ['zero', () => '0'],
  ])('album_id: %s → 400/160, the same answer, nothing stored', async (_label, albumId) => {
    const before = await app.strapi.db.query('plugin::image-api.image').count();
    const res = await upload(key, { album_id: albumId() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, error: { message: 'Invalid album', code: 160 }, status_txt: 'Bad Request' });
    expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(before);
  });

  test('/api/1/albums lists the plugin\'s folder and those below it, with their files, by name path', async () => {
    const res = await albums(key);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const base = await pluginFolder();
    const count = async (id: number) => app.strapi.db.query('plugin::upload.file').count({ where: { folder: { id } } });
    expect(res.body).toEqual({
      status_code: 200,
      success: { message: 'albums', code: 200 },
      albums: [
        { id: base.id, name: 'API uploads', path: '/API uploads', image_count: await count(base.id) },
        { id: cats.id, name: 'Cats', path: '/API uploads/Cats', image_count: 1 },
        { id: kittens.id, name: 'Kittens', path: '/API uploads/Cats/Kittens', image_count: 1 },
      ],
      status_txt: 'OK',
    });
    expect(res.body.albums[0].image_count).toBeGreaterThanOrEqual(1);
  });

  test('listing albums needs a valid key', async () => {
    expect((await albums('img_nobody')).status).toBe(401);
    expect((await app.http.get('/api/1/albums')).body.error).toEqual({ message: 'No API key provided', code: 100 });
  });
});

describe('a key with a destination folder', () => {
  let key: string;
  let projects: any;
  let website: any;
  beforeAll(async () => {
    const clients = await folderNamed('Clients', null);
    projects = await folderNamed('Projects', clients.id);
    website = await folderNamed('Website', projects.id);
    key = await keyWithFolder('projects key', projects.id);
  });

  test('uploads go there, or below it; the plugin\'s folder is outside it', async () => {
    expect((await folderOf((await upload(key)).body.image)).id).toBe(projects.id);
    expect((await folderOf((await upload(key, { album_id: String(website.id) })).body.image)).id).toBe(website.id);
    const base = await pluginFolder();
    expect((await upload(key, { album_id: String(base.id) })).body.error.code).toBe(160);
  });

  test('its albums are its folder and what is below, named from the top of the Media Library', async () => {
    const res = await albums(key);
    expect(res.body.albums).toEqual([
      { id: projects.id, name: 'Projects', path: '/Clients/Projects', image_count: 1 },
      { id: website.id, name: 'Website', path: '/Clients/Projects/Website', image_count: 1 },
    ]);
  });

  test('when an editor deletes its folder, its uploads go to the plugin\'s folder again', async () => {
    const lonely = await folderNamed('Lonely', null);
    const orphan = await keyWithFolder('folder deleted later', lonely.id);
    const res = await app.http.post('/upload/actions/bulk-delete').set(auth).send({ folderIds: [lonely.id], fileIds: [] });
    expect(res.status).toBe(200);
    const image = (await upload(orphan)).body.image;
    expect((await folderOf(image)).name).toBe('API uploads');
    expect((await albums(orphan)).body.albums[0].name).toBe('API uploads');
  });
});
