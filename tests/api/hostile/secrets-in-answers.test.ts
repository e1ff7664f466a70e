/**
 * Server-only fields never leave the server, wherever they would appear: a key's hash and encrypted
 * copy, its requester's details when it rides along as an image's relation, an image's delete-link
 * hash and the sweep's claims, the password hash and tokens of the site user an image belongs to.
 * Looked for at any depth in the answers the admin panel (as an Editor and as a Super Admin) and the
 * content API (with a full-access token) give. Issue 23, item 4: the Content Manager's image list
 * carried each key's hash and contact, the Media Library's `populate=related` each image's delete
 * hash. Issue 34's attack review: an Editor read the site user's e-mail address and role
 * (`populate[owner_user]=*`), and the document service handed out the user's password hash.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';

const IMAGE_UID = 'plugin::image-api.image';
const SECRETS = ['key_hash', 'key_encrypted', 'delete_hash', 'expiry_claim', 'expiry_claimed_at', 'password', 'resetPasswordToken', 'confirmationToken'];
const REQUESTER = { description: 'the requester wrote this', contact: 'requester@example.com', rate_limit: '7/minute' };
/** The site user the key (and so the image) belongs to; what names it, what only readers of users see, what no one sees. */
const SITE_USER = { username: 'siteowner', email: 'siteowner@example.com', provider: 'local', confirmed: true, blocked: false };
const USER_SECRETS = { password: '$2a$10$siteOwnerHashSiteOwnerHash', resetPasswordToken: 'reset-site-owner-9f2e', confirmationToken: 'confirm-site-owner-1b7d' };
const USER_NAMES = ['id', 'documentId', 'username'];

let app: TestApp;
let key: string;
let editor: Record<string, string>;
let superAdmin: Record<string, string>;
let contentApi: Record<string, string>;

beforeAll(async () => {
  app = await startApp();
  key = await app.createKey('keyed for secrets');
  const role = await app.strapi.db.query('plugin::users-permissions.role').findOne({ where: { type: 'authenticated' }, select: ['id'] });
  const user = await app.strapi.db.query('plugin::users-permissions.user').create({ data: { ...SITE_USER, ...USER_SECRETS, role: role.id } });
  await app.strapi.db.query('plugin::image-api.api-key').update({ where: { name: 'keyed for secrets' }, data: { ...REQUESTER, owner_user: user.id } });
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

const requesterValues = [...Object.values(REQUESTER), ...Object.values(USER_SECRETS)];

/** Every site user riding along in `value` (under `owner_user`), at any depth. */
function siteUsers(value: unknown): Array<Record<string, unknown>> {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, child]) => [
    ...(name === 'owner_user' && child && typeof child === 'object' && 'id' in child ? [child as Record<string, unknown>] : []),
    ...siteUsers(child),
  ]);
}

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

  test('the site user an image belongs to: what names it; its e-mail address and role for a Super Admin only; never its password or tokens', async () => {
    const list = await app.http.get(`/content-manager/collection-types/${IMAGE_UID}`).set(auth());
    const documentId = list.body.results[0].documentId;
    const answers = await Promise.all(
      [
        `/content-manager/collection-types/${IMAGE_UID}`,
        `/content-manager/collection-types/${IMAGE_UID}?populate[owner_user]=*`,
        `/content-manager/collection-types/${IMAGE_UID}/${documentId}?populate[owner_user][populate]=role`,
        `/upload/files?populate[related][on][${IMAGE_UID}][populate][owner_user][populate]=*`,
      ].map((path) => app.http.get(path).set(auth()))
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      const users = siteUsers(res.body);
      expect(users.length).toBeGreaterThan(0);
      for (const user of users) {
        if (auth() === editor) expect(Object.keys(user).sort()).toEqual([...USER_NAMES].sort());
        else expect(user).toMatchObject({ username: SITE_USER.username, email: SITE_USER.email });
      }
      expect(findings(res.body, SECRETS, requesterValues)).toEqual([]);
      if (auth() === editor) expect(JSON.stringify(res.body)).not.toContain(SITE_USER.email);
    }
    if (auth() === superAdmin) expect(siteUsers(answers[1].body)[0].role).toMatchObject({ type: 'authenticated' });
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
  // A site user riding along shows what names it: the content API carries no admin's abilities.
  const owned = await app.http.get(`/api/upload/files?populate[related][on][${IMAGE_UID}][populate][owner_user]=true`).set(contentApi);
  expect(owned.status).toBe(200);
  expect(siteUsers(owned.body).map((user) => Object.keys(user).sort())).toEqual([[...USER_NAMES].sort()]);
});

test('the document service itself returns none, at any depth', async () => {
  const images = await app.strapi.documents(IMAGE_UID).findMany({ populate: { api_key: true, owner_user: true } });
  expect(images.length).toBeGreaterThan(0);
  expect(findings(images, SECRETS, requesterValues)).toEqual([]);
  // Inside the server, a site user keeps what a reader of users sees.
  expect(siteUsers(images)).toEqual([expect.objectContaining(SITE_USER)]);
  const keys = await app.strapi.documents('plugin::image-api.api-key').findMany({ populate: { images: true } });
  expect(findings(keys, SECRETS, [])).toEqual([]);
  // A key's own entry keeps its requester's details: it is the admin's view of the request.
  expect(keys.find((entry) => (entry as { name?: string }).name === 'keyed for secrets')).toMatchObject(REQUESTER);
});
