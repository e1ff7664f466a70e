/**
 * Albums are Media Library folders (docs/api.md, "Albums"): a key uploads to its destination folder
 * (its entry's, else the plugin's) or to a folder below it given as `album_id`, never into another
 * key's tree; anything else is 160; `/api/1/albums` lists the folders a key may upload to.
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
    expect(res.body).toEqual({ status_code: 400, error: { message: 'Invalid album: album_id must be the id of a folder that GET /api/1/albums lists for this key', code: 160 }, status_txt: 'Bad Request' });
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

// A folder an admin made a key's destination under "API uploads" was listed to, and took uploads
// from, every key whose destination is "API uploads" (issue 34, item 10).
describe("keys' trees: a key never reaches into another key's folder", () => {
  type Folder = { id: number; name: string; path: string };
  const tree: Record<string, Folder> = {};
  const keys: Record<string, string> = {};
  const INVALID = { status_code: 400, error: { message: 'Invalid album: album_id must be the id of a folder that GET /api/1/albums lists for this key', code: 160 }, status_txt: 'Bad Request' };

  // API uploads
  //   Shared                         (no key's)
  //     Deep1/Deep2/Deep3/Deep4/Deep5 (no key's; Deep3 is key F's)
  //     Movable
  //   TeamB                          key B
  //     B1
  //     TeamC                        key C (below B's)
  //       C1
  //   D1, D2                         sibling keys D1, D2
  beforeAll(async () => {
    const base = await pluginFolder();
    const make = async (name: string, parent: number) => {
      tree[name] = await folderNamed(name, parent);
    };
    await make('Shared', base.id);
    let parent = tree.Shared.id;
    for (const name of ['Deep1', 'Deep2', 'Deep3', 'Deep4', 'Deep5']) {
      await make(name, parent);
      parent = tree[name].id;
    }
    await make('Movable', tree.Shared.id);
    await make('TeamB', base.id);
    await make('B1', tree.TeamB.id);
    await make('TeamC', tree.TeamB.id);
    await make('C1', tree.TeamC.id);
    await make('D1', base.id);
    await make('D2', base.id);
    tree.base = base;
    keys.A = await app.createKey('default destination');
    keys.E = await keyWithFolder('names API uploads itself', base.id);
    keys.B = await keyWithFolder('team B', tree.TeamB.id);
    keys.C = await keyWithFolder('team C', tree.TeamC.id);
    keys.D1 = await keyWithFolder('sibling D1', tree.D1.id);
    keys.D2 = await keyWithFolder('sibling D2', tree.D2.id);
    keys.F = await keyWithFolder('deep F', tree.Deep3.id);
  });

  /** What each key may upload to, every other folder of the tree refused. */
  const REACHES: Record<string, string[]> = {
    A: ['base', 'Shared', 'Deep1', 'Deep2', 'Movable'],
    E: ['base', 'Shared', 'Deep1', 'Deep2', 'Movable'],
    B: ['TeamB', 'B1'],
    C: ['TeamC', 'C1'],
    D1: ['D1'],
    D2: ['D2'],
    F: ['Deep3', 'Deep4', 'Deep5'],
  };
  const listed = async (key: string) => {
    const res = await albums(key);
    expect(res.status).toBe(200);
    return (res.body.albums as Array<{ id: number; name: string }>).map((album) => album.id).sort((a, b) => a - b);
  };
  const ids = (names: string[]) => names.map((name) => tree[name].id).sort((a, b) => a - b);
  /** The folders of this test's tree a key's listing names (other tests' folders may sit beside them). */
  const listedHere = async (key: string) => {
    const here = new Set(Object.values(tree).map((folder) => folder.id));
    return (await listed(key)).filter((id) => here.has(id));
  };

  test.each(Object.keys(REACHES))('key %s uploads to its own tree only; every other folder answers the one 400/160', async (name) => {
    for (const [folder, { id }] of Object.entries(tree)) {
      const before = await app.strapi.db.query('plugin::image-api.image').count();
      const res = await upload(keys[name], { album_id: String(id) });
      if (REACHES[name].includes(folder)) {
        expect([folder, res.status]).toEqual([folder, 200]);
        expect((await folderOf(res.body.image)).id).toBe(id);
      } else {
        expect([folder, res.status, res.body]).toEqual([folder, 400, INVALID]);
        expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(before);
      }
    }
  });

  test.each(Object.keys(REACHES))('/api/1/albums for key %s lists exactly what it may upload to', async (name) => {
    expect(await listedHere(keys[name])).toEqual(ids(REACHES[name]));
    // Each listed album is accepted (other tests' folders included).
    for (const id of await listed(keys[name])) expect([id, (await upload(keys[name], { album_id: String(id) })).status]).toEqual([id, 200]);
  });

  test('the counts are of the listed folders themselves', async () => {
    const res = await albums(keys.B);
    const count = async (id: number) => app.strapi.db.query('plugin::upload.file').count({ where: { folder: { id } } });
    for (const album of res.body.albums as Array<{ id: number; image_count: number }>) expect(album.image_count).toBe(await count(album.id));
    expect(res.body.albums.map((album: { path: string }) => album.path)).toEqual(['/API uploads/TeamB', '/API uploads/TeamB/B1']);
  });

  test('after an admin moves folders, each key reaches what its tree holds now', async () => {
    const move = async (folder: Folder, destination: Folder) => {
      const res = await app.http.post('/upload/actions/bulk-move').set(auth).send({ destinationFolderId: destination.id, fileIds: [], folderIds: [folder.id] });
      expect(res.status).toBe(200);
    };
    const accepts = async (key: string, folder: Folder) => (await upload(key, { album_id: String(folder.id) })).status;
    // Movable goes from the shared tree into B's: B's now, A's no more.
    await move(tree.Movable, tree.B1);
    expect([await accepts(keys.A, tree.Movable), await accepts(keys.B, tree.Movable)]).toEqual([400, 200]);
    expect(await listed(keys.A)).not.toContain(tree.Movable.id);
    expect(await listed(keys.B)).toContain(tree.Movable.id);
    // C's whole tree moves under the shared folder: still C's, and neither A's nor B's.
    await move(tree.TeamC, tree.Shared);
    for (const folder of [tree.TeamC, tree.C1]) {
      expect([await accepts(keys.A, folder), await accepts(keys.B, folder), await accepts(keys.C, folder)]).toEqual([400, 400, 200]);
    }
    expect(await listedHere(keys.C)).toEqual(ids(['TeamC', 'C1']));
    // B's destination moves under D1's: D1 does not reach it, nor what B holds below it.
    await move(tree.TeamB, tree.D1);
    for (const folder of [tree.TeamB, tree.B1, tree.Movable]) {
      expect([await accepts(keys.D1, folder), await accepts(keys.B, folder)]).toEqual([400, 200]);
    }
    expect(await listedHere(keys.D1)).toEqual(ids(['D1']));
    expect(await listedHere(keys.B)).toEqual(ids(['TeamB', 'B1', 'Movable']));
  });
});
