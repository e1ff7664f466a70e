/**
 * Server-only fields never leave the server, wherever they would appear: a key's hash and encrypted
 * copy, its requester's details when it rides along as an image's relation, an image's delete-link
 * hash and the sweep's claims. Looked for at any depth in the answers the admin panel (as an Editor
 * and as a Super Admin) and the content API (with a full-access token) give. Issue 23, item 4: the
 * Content Manager's image list carried each key's hash and contact, the Media Library's
 * `populate=related` each image's delete hash.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';

const IMAGE_UID = 'plugin::image-api.image';
const SECRETS = ['key_hash', 'key_encrypted', 'delete_hash', 'expiry_claim', 'expiry_claimed_at'];
const REQUESTER = { description: 'the requester wrote this', contact: 'requester@example.com', rate_limit: '7/minute' };

let app: TestApp;
let key: string;
let editor: Record<string, string>;
let superAdmin: Record<string, string>;
let contentApi: Record<string, string>;

beforeAll(async () => {
  app = await startApp();
  key = await app.createKey('keyed for secrets');
  await app.strapi.db.query('plugin::image-api.api-key').update({ where: { name: 'keyed for secrets' }, data: { ...REQUESTER } });
  superAdmin = { Authorization: `Bearer ${await adminToken(app)}` };
  editor = { Authorization: `Bearer ${await adminToken(app, 'editor@img.test', 'Editor-pass-1234', 'strapi-editor')}` };
  const token = await app.strapi.service('admin::api-token').create({ name: 'full', type: 'full-access', lifespan: null });
  contentApi = { Authorization: `Bearer ${token.accessKey}` };
  const res = await app.upload(key, await png(30, 20));
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
});

/** Every path in `value` whose last name is one of `names`, or whose value is one of `values`. */
function findings(value: unknown, names: string[], values: string[], path = '$'): string[] {
  if (typeof value === 'string') return values.includes(value) ? [path] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, child]) => [
    ...(names.includes(name) ? [`${path}.${name}`] : []),
    ...findings(child, names, values, `${path}.${name}`),
  ]);
}

const requesterValues = Object.values(REQUESTER);

describe.each([
  ['an Editor', () => editor],
  ['a Super Admin', () => superAdmin],
])('as %s', (_role, auth) => {
  test("the Content Manager's image list: the key shows as its name, nothing of its secrets or its requester", async () => {
    const res = await app.http.get(`/content-manager/collection-types/${IMAGE_UID}`).query({ page: 1, pageSize: 10 }).set(auth());
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    const keyed = res.body.results.find((entry: { api_key?: unknown }) => entry.api_key);
    // The list still names the key (its column).
    if (keyed) expect(keyed.api_key).toMatchObject({ name: 'keyed for secrets' });
    expect(findings(res.body, SECRETS, requesterValues)).toEqual([]);
  });

  test("an image's edit view, its key populated: the same", async () => {
    const list = await app.http.get(`/content-manager/collection-types/${IMAGE_UID}`).set(auth());
    const documentId = list.body.results[0].documentId;
    const res = await app.http.get(`/content-manager/collection-types/${IMAGE_UID}/${documentId}`).query({ populate: '*' }).set(auth());
    expect(res.status).toBe(200);
    expect(findings(res.body, SECRETS, requesterValues)).toEqual([]);
  });

  test("the Media Library's files with their related records: no delete hash", async () => {
    const res = await app.http.get('/upload/files').query({ populate: 'related' }).set(auth());
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('"__type":"plugin::image-api.image"');
    expect(findings(res.body, SECRETS, requesterValues)).toEqual([]);
  });
});

test('the content API, with a full-access token: upload files with their related images carry no secret', async () => {
  const res = await app.http.get('/api/upload/files').query({ populate: 'related' }).set(contentApi);
  expect(res.status).toBe(200);
  expect(findings(res.body, SECRETS, requesterValues)).toEqual([]);
});

test('the document service itself returns none, at any depth', async () => {
  const images = await app.strapi.documents(IMAGE_UID).findMany({ populate: { api_key: true } });
  expect(images.length).toBeGreaterThan(0);
  expect(findings(images, SECRETS, requesterValues)).toEqual([]);
  const keys = await app.strapi.documents('plugin::image-api.api-key').findMany({ populate: { images: true } });
  expect(findings(keys, SECRETS, [])).toEqual([]);
  // A key's own entry keeps its requester's details: it is the admin's view of the request.
  expect(keys.find((entry) => (entry as { name?: string }).name === 'keyed for secrets')).toMatchObject(REQUESTER);
});
