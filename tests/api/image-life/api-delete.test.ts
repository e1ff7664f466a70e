/**
 * `/api/1/delete` (docs/api.md, "Deleting an image"): a key deletes the images uploaded with it, or
 * with another key of the same owner; any other image answers exactly as an unknown one.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';
import { NOTHING, tracesOf, whole } from '../../helpers/leftovers';

const KEY_UID = 'plugin::image-api.api-key';
let app: TestApp;
let picture: Buffer;

beforeAll(async () => {
  app = await startApp();
  picture = await png(120, 90);
});
afterAll(async () => {
  await app?.stop();
});

const keys = () => app.strapi.plugin('image-api').service('api-keys');
async function upload(key: string) {
  const res = await app.upload(key, picture);
  expect(res.status).toBe(200);
  return res.body.image;
}
const remove = (fields: Record<string, string>, method: 'post' | 'get' = 'post') =>
  method === 'post' ? app.http.post('/api/1/delete').type('form').send(fields) : app.http.get('/api/1/delete').query(fields);
const NOT_FOUND = { status_code: 404, error: { message: 'Image not found', code: 404 }, status_txt: 'Not Found' };

test('the key that uploaded an image deletes it: JSON by default, `deleted` in txt, by POST or GET', async () => {
  const key = await app.createKey();
  for (const [method, format] of [['post', 'json'], ['get', 'txt'], ['post', 'txt']] as const) {
    const image = await upload(key);
    const res = await remove({ key, id: image.id_encoded, format }, method);
    expect(res.status).toBe(200);
    if (format === 'json') {
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({ status_code: 200, success: { message: 'image deleted', code: 200 }, status_txt: 'OK' });
    } else {
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.text).toBe('deleted');
    }
    expect(await tracesOf(app, image.name)).toEqual(NOTHING);
    expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(404);
    expect((await app.http.delete(app.pathOf(image.delete_url))).status).toBe(404);
  }
});

test('another key\'s image answers exactly as an unknown one, and is left alone', async () => {
  const [mine, theirs] = [await app.createKey(), await app.createKey()];
  const image = await upload(theirs);
  const other = await remove({ key: mine, id: image.id_encoded });
  const unknown = await remove({ key: mine, id: 'NoSuchImage' });
  for (const res of [other, unknown]) {
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  }
  expect(other.text).toBe(unknown.text);
  expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', 5));
});

test('a key of the same owner deletes it: an admin owner, or a site user', async () => {
  const token = await adminToken(app, 'owner@img.test');
  const admin = await app.strapi.db.query('admin::user').findOne({ where: { email: 'owner@img.test' } });
  const auth = { Authorization: `Bearer ${token}` };
  const owned = async (name: string, owner: Record<string, unknown>) => {
    const res = await app.http.post(`/content-manager/collection-types/${KEY_UID}`).set(auth).send({ name, ...owner });
    expect(res.status).toBe(201);
    return (await app.http.get(`/image-api/api-keys/${res.body.data.documentId}/key`).set(auth)).body.data.key as string;
  };
  const byAdmin = { owner: { connect: [{ id: admin.id }] } };
  const [laptop, phone] = [await owned('laptop of the admin', byAdmin), await owned('phone of the admin', byAdmin)];
  const image = await upload(laptop);
  expect((await remove({ key: phone, id: image.id_encoded })).status).toBe(200);
  expect(await tracesOf(app, image.name)).toEqual(NOTHING);

  const role = await app.strapi.db.query('plugin::users-permissions.role').findOne({ where: { type: 'authenticated' } });
  const user = await app.strapi.db.query('plugin::users-permissions.user').create({
    data: { username: 'carol', email: 'carol@img.test', provider: 'local', confirmed: true, role: role.id },
  });
  const bySiteUser = { owner_user: { connect: [{ id: user.id }] } };
  const [first, second] = [await owned('first of carol', bySiteUser), await owned('second of carol', bySiteUser)];
  const hers = await upload(first);
  // The admin's keys have nothing to do with carol's images.
  expect((await remove({ key: phone, id: hers.id_encoded })).status).toBe(404);
  expect((await remove({ key: second, id: hers.id_encoded })).status).toBe(200);
  expect(await tracesOf(app, hers.name)).toEqual(NOTHING);
});

test('refusals: no id, no key, an unknown key, a revoked key', async () => {
  const key = await app.createKey('to revoke later');
  const image = await upload(key);
  const cases: Array<[Record<string, string>, number, number]> = [
    [{ key }, 400, 130],
    [{ key, id: '  ' }, 400, 130],
    [{ id: image.id_encoded }, 401, 100],
    [{ key: 'img_nobody', id: image.id_encoded }, 401, 100],
    [{ key, id: 'bad id!' }, 404, 404],
    [{ key, id: image.id_encoded, action: 'upload' }, 400, 120],
    [{ key, id: image.id_encoded, format: 'xml' }, 400, 140],
  ];
  for (const [fields, status, code] of cases) {
    const res = await remove(fields);
    expect([fields, res.status, res.body.error?.code]).toEqual([fields, status, code]);
  }
  await keys().revoke('to revoke later');
  const revoked = await remove({ key, id: image.id_encoded });
  expect([revoked.status, revoked.body.error]).toEqual([403, { message: 'API key revoked', code: 100 }]);
  expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', 5));
});

test('deleting charges nothing to the key\'s upload budget', async () => {
  const { key } = await keys().create({ name: 'tight budget', rateLimit: '2/minute' });
  const image = await upload(key);
  expect((await remove({ key, id: image.id_encoded })).status).toBe(200);
  expect((await remove({ key, id: 'NoSuchImage' })).status).toBe(404);
  await upload(key);
  expect((await app.upload(key, picture)).status).toBe(429);
});
