/**
 * What an admin may not read, an admin may not query (docs/security.md, "Server-only fields"): a
 * filter, sort or search on a key's private fields or on a server-only field answers as if it were
 * not there, through every admin route that takes a query, at any depth, in any group, with any
 * operator. `filters[api_key][contact][$startsWith]=a` on the image list told an Editor a key's
 * contact through the count, one character a request (issue 34, item 5).
 *
 * Keys k1, k2 and k3 (k3 with no optional field set) and their four images; k1 and k2 belong to site
 * users u1 and u2 (users-permissions users, their images too). Each condition below selects some of
 * them and not others, so a condition that were applied would change the answer.
 */
import qs from 'qs';
import type { Response } from 'supertest';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';

const IMAGE_UID = 'plugin::image-api.image';
const KEY_UID = 'plugin::image-api.api-key';
const USER_UID = 'plugin::users-permissions.user';
const LIST = `/content-manager/collection-types/${IMAGE_UID}`;
const KEY_LIST = `/content-manager/collection-types/${KEY_UID}`;
const USER_LIST = `/content-manager/collection-types/${USER_UID}`;
const READ = 'plugin::content-manager.explorer.read';

const app = useApp();

type Auth = Record<string, string>;
type Filter = Record<string, unknown>;
type Row = Record<string, unknown>;

let superAdmin: Auth;
let editor: Auth;
let author: Auth;
/** k1's values of every key field (relations by id), as conditions use them. */
let k1: Row;
/** The values of one image (k2's first, which holds an expiry claim) for the image's server-only fields. */
let claimed: Row;
/** u1's values of every site user field (its role by id). */
let u1: Row;
let imageIds: number[];

/** A key's fields an Editor may not query (all but what names it: name, prefix, last four, active). */
const KEY_PRIVATE = [
  'contact', 'description', 'rate_limit', 'default_expiration', 'expires_at', 'duplicates', 'quota_images', 'quota_bytes',
  'live_images', 'live_bytes', 'upload_count', 'last_used_at', 'owner', 'folder', 'images',
];
const KEY_SERVER_ONLY = ['key_hash', 'key_encrypted'];
const IMAGE_SERVER_ONLY = ['delete_hash', 'source_digest', 'expiry_claim', 'expiry_claimed_at', 'answer'];
/** A site user's fields an Editor may not query (all but what names it: id, documentId, username). */
const USER_PRIVATE = ['email', 'provider', 'password', 'resetPasswordToken', 'confirmationToken', 'confirmed', 'blocked', 'role', 'createdAt'];
/** Nobody queries these, a Super Admin included: each would be an oracle on a credential. */
const USER_SECRETS = ['password', 'resetPasswordToken', 'confirmationToken'];

const url = (path: string, query: Record<string, unknown>) => `${path}?${qs.stringify(query, { encodeValuesOnly: true })}`;

beforeAll(async () => {
  superAdmin = { Authorization: `Bearer ${await adminToken(app)}` };
  editor = { Authorization: `Bearer ${await adminToken(app, 'editor@img.test', 'Editor-pass-1234', 'strapi-editor')}` };
  author = { Authorization: `Bearer ${await adminToken(app, 'author@img.test', 'Author-pass-1234', 'strapi-author')}` };
  const keys = app.strapi.plugin('image-api').service('api-keys');
  const folder = await app.strapi.plugin('upload').service('folder').create({ name: 'Q folder', parent: null });
  const made = {
    k1: await keys.create({
      name: 'k1', description: 'alpha purpose', contact: 'alice@example.com', rateLimit: '5/minute', expiresAt: new Date('2031-01-01T00:00:00Z'),
      duplicates: 'reuse', quotaImages: 100, quotaBytes: 1_000_000, ownerEmail: 'author@img.test',
    }),
    k2: await keys.create({
      name: 'k2', description: 'beta purpose', contact: 'bob@example.com', rateLimit: '7/minute', expiresAt: new Date('2032-01-01T00:00:00Z'),
      duplicates: 'refuse', quotaImages: 200, quotaBytes: 2_000_000,
    }),
    k3: await keys.create({ name: 'k3' }),
  };
  const roles: Array<{ id: number; type: string }> = await app.strapi.db.query('plugin::users-permissions.role').findMany({ select: ['id', 'type'] });
  const roleOf = (type: string) => roles.find((role) => role.type === type)?.id;
  const users = app.strapi.db.query(USER_UID);
  const user1 = await users.create({
    data: {
      username: 'umber', email: 'umber@site.test', provider: 'local', password: '$2a$10$umberPasswordHashUmberPasswordHash',
      resetPasswordToken: 'reset-umber-5d1c9e', confirmationToken: 'confirm-umber-77ab0f', confirmed: true, blocked: false, role: roleOf('authenticated'),
    },
  });
  const user2 = await users.create({ data: { username: 'violet', email: 'violet@site.test', provider: 'github', confirmed: false, blocked: true, role: roleOf('public') } });
  u1 = { ...user1, role: roleOf('authenticated') };
  await app.strapi.db.query(KEY_UID).update({ where: { name: 'k1' }, data: { folder: folder.id, default_expiration: 'P1D', owner_user: user1.id } });
  await app.strapi.db.query(KEY_UID).update({ where: { name: 'k2' }, data: { default_expiration: 'P2D', owner_user: user2.id } });
  for (const [key, size] of [[made.k1.key, 21], [made.k2.key, 22], [made.k2.key, 23], [made.k3.key, 24]] as const) {
    expect((await app.upload(key, await png(size, size))).status).toBe(200);
  }
  const images = () => app.strapi.db.connection('image_api_images');
  imageIds = (await images().select('id').orderBy('id')).map((row: { id: number }) => row.id);
  // One image holds the sweep's claim, one has no saved answer: each field is set on some images only.
  await images().where('id', imageIds[1]).update({ expiry_claim: 'sweep-7f3e', expiry_claimed_at: new Date('2030-06-01T00:00:00Z') });
  await images().where('id', imageIds[3]).update({ answer: null });

  const entry = await app.strapi.db.query(KEY_UID).findOne({ where: { name: 'k1' }, populate: { owner: true, folder: true, images: true } });
  const raw = await app.strapi.db.connection('image_api_keys').where('name', 'k1').first();
  k1 = { ...entry, key_hash: raw.key_hash, key_encrypted: raw.key_encrypted, owner: entry.owner.id, folder: entry.folder.id, images: entry.images[0].id };
  claimed = await images().where('id', imageIds[1]).first();
});

// What an answer shows: its count and its order, or a refusal.
const listed = (res: Response) =>
  res.status === 400 ? 'refused' : res.status === 200 ? `${res.body.pagination.total}: ${res.body.results.map((r: { id: number }) => r.id).join(',')}` : `${res.status} ${res.text.slice(0, 200)}`;
const related = (res: Response) =>
  res.status === 400
    ? 'refused'
    : res.status === 200
      ? JSON.stringify(res.body.results.map((file: { id: number; related: Array<{ id: number }> }) => [file.id, file.related.map((r) => r.id)]))
      : `${res.status} ${res.text.slice(0, 200)}`;

/** The image list, as the Content Manager asks for it. */
const imageList = async (auth: Auth, query: Record<string, unknown> = {}) => listed(await app.http.get(url(LIST, { pageSize: 100, ...query })).set(auth));
const keyList = async (auth: Auth, query: Record<string, unknown> = {}) => listed(await app.http.get(url(KEY_LIST, { pageSize: 100, ...query })).set(auth));
const userList = async (auth: Auth, query: Record<string, unknown> = {}) => listed(await app.http.get(url(USER_LIST, { pageSize: 100, ...query })).set(auth));
/** The image list with each image's site user, filtered where it is populated: `image:user` (or `-`), in order. */
const imageOwners = async (auth: Auth, filters: Filter = {}) => {
  const res = await app.http.get(url(LIST, { pageSize: 100, populate: { owner_user: { filters } } })).set(auth);
  return res.status === 200 ? res.body.results.map((r: { id: number; owner_user?: { id: number } | null }) => `${r.id}:${r.owner_user?.id ?? '-'}`).join(',') : `${res.status}`;
};
/** The key picker of an image's edit view. */
const keyPicker = async (auth: Auth, filters?: Filter) =>
  listed(await app.http.get(url(`/content-manager/relations/${IMAGE_UID}/api_key`, { pageSize: 100, ...(filters ? { filters } : {}) })).set(auth));
/** The site user picker of an image's edit view (every user, by the picker's main field). */
const userPicker = async (auth: Auth, query: Record<string, unknown> = {}) =>
  listed(await app.http.get(url(`/content-manager/relations/${IMAGE_UID}/owner_user`, { pageSize: 100, ...query })).set(auth));
/** The Media Library's files with the images that use them (`populate=related`, fragment on images). */
const mediaLibrary = async (auth: Auth, on: Record<string, unknown> = { fields: ['id'] }) =>
  related(
    await app.http
      .get(url('/upload/files', { pageSize: 100, sort: 'id:asc', populate: { related: { on: { [IMAGE_UID]: on } } } }))
      .set(auth)
  );

type Family = 'equality' | 'sets' | 'text' | 'ranges' | 'nulls';
const FAMILIES: Family[] = ['equality', 'sets', 'text', 'ranges', 'nulls'];

type Kind = 'text' | 'number' | 'boolean' | 'relation' | 'json';
/** How each field is queried: text (strings, enumerations), number (numbers, dates), boolean, relation (by id), json. */
const KINDS: Record<string, Kind> = {
  contact: 'text', description: 'text', rate_limit: 'text', default_expiration: 'text', duplicates: 'text', key_hash: 'text', key_encrypted: 'text',
  expires_at: 'number', quota_images: 'number', quota_bytes: 'number', live_images: 'number', live_bytes: 'number', upload_count: 'number', last_used_at: 'number',
  owner: 'relation', folder: 'relation', images: 'relation',
  delete_hash: 'text', source_digest: 'text', expiry_claim: 'text', expiry_claimed_at: 'number', answer: 'json',
  email: 'text', provider: 'text', password: 'text', resetPasswordToken: 'text', confirmationToken: 'text', confirmed: 'boolean', blocked: 'boolean',
  role: 'relation', createdAt: 'number',
};
const kindOf = (field: string): Kind => KINDS[field];

const asValue = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));

/** The conditions of a family on a field whose value (for k1, or the claimed image) is `value`. */
function conditions(family: Family, kind: Kind, raw: unknown): Array<[string, unknown]> {
  const value = asValue(raw);
  const part = value.slice(1, 6);
  const ops: Array<[string, unknown]> = [];
  if (family === 'equality' && kind !== 'json') {
    ops.push(['$eq', value], ['$ne', value]);
    if (kind === 'text') ops.push(['$eqi', value.toUpperCase()], ['$nei', value.toUpperCase()]);
  }
  if (family === 'sets' && kind !== 'json') ops.push(['$in', [value]], ['$notIn', [value]]);
  if (family === 'text' && kind === 'text') {
    ops.push(['$contains', part], ['$containsi', part.toUpperCase()], ['$notContains', part], ['$notContainsi', part.toUpperCase()]);
    ops.push(['$startsWith', value.slice(0, 5)], ['$startsWithi', value.slice(0, 5).toUpperCase()], ['$endsWith', value.slice(-5)], ['$endsWithi', value.slice(-5).toUpperCase()]);
  }
  if (family === 'ranges' && kind !== 'json' && kind !== 'boolean') ops.push(['$lt', value], ['$lte', value], ['$gt', value], ['$gte', value], ['$between', [value, value]]);
  if (family === 'nulls') ops.push(['$null', true], ['$notNull', true]);
  // A relation is queried through its target's id.
  return ops.map(([op, operand]) => [op, kind === 'relation' ? { id: { [op]: operand } } : { [op]: operand }]);
}

/** Ways to reach a key's field from the image list: straight, in groups, in groups inside the relation, deep. */
const keyShapes = (field: string, c: unknown): Filter[] => [
  { api_key: { [field]: c } },
  { $or: [{ api_key: { [field]: c } }] },
  { $not: { api_key: { [field]: c } } },
  { api_key: { $or: [{ $and: [{ [field]: c }] }] } },
  { api_key: { images: { api_key: { [field]: c } } } },
];
/** Ways to reach an image's field from the image list. */
const imageShapes = (field: string, c: unknown): Filter[] => [
  { [field]: c },
  { $or: [{ $and: [{ [field]: c }] }] },
  { $not: { [field]: c } },
  { api_key: { images: { [field]: c } } },
];
/** Ways to reach a site user's field from the image list: through the image's user and its key's, in groups. */
const userShapes = (field: string, c: unknown): Filter[] => [
  { owner_user: { [field]: c } },
  { $or: [{ owner_user: { [field]: c } }] },
  { $not: { owner_user: { [field]: c } } },
  { owner_user: { $or: [{ $and: [{ [field]: c }] }] } },
  { api_key: { owner_user: { [field]: c } } },
];
/** From the users list. */
const userRootShapes = (field: string, c: unknown): Filter[] => [
  { [field]: c },
  { $or: [{ [field]: c }] },
  { $not: { [field]: c } },
  { role: { users: { [field]: c } } },
];
/** From the key side (the key picker, the key list). */
const keyRootShapes = (field: string, c: unknown): Filter[] => [
  { [field]: c },
  { $or: [{ [field]: c }] },
  { $not: { [field]: c } },
  { images: { api_key: { [field]: c } } },
];

const cases = (fields: string[]) =>
  fields.flatMap((field) => FAMILIES.filter((family) => conditions(family, kindOf(field), 'x').length > 0).map((family) => [field, family] as [string, Family]));

/**
 * Every operator of the families, each in every shape, in one `$and`: any one of them applied would
 * narrow the answer (each selects some of the images or keys and not others).
 */
/** What the other routes are sent: the same path through the same check, so two families say enough (and fit a URL). */
const SOME: Family[] = ['equality', 'nulls'];
const every = (families: Family[], field: string, value: unknown, shapes: (field: string, c: unknown) => Filter[]): Filter => ({
  $and: families.flatMap((family) => conditions(family, kindOf(field), value)).flatMap(([, c]) => shapes(field, c)),
});

describe('an Editor queries no key field but those that name the key', () => {
  let baseline: { list: string; picker: string; library: string };
  beforeAll(async () => {
    baseline = { list: await imageList(editor), picker: await keyPicker(editor), library: await mediaLibrary(editor) };
    expect(baseline.list).toMatch(/^4: /);
  });

  test.each(cases(KEY_PRIVATE))("filters on a key's %s, %s operators: the image list answers as without them", async (field, family) => {
    expect(await imageList(editor, { filters: every([family], field, k1[field], keyShapes) })).toBe(baseline.list);
  });

  test.each(KEY_PRIVATE)("filters on a key's %s: the key picker and the Media Library answer as without them", async (field) => {
    expect(await keyPicker(editor, every(SOME, field, k1[field], keyRootShapes))).toBe(baseline.picker);
    expect(await mediaLibrary(editor, { fields: ['id'], filters: every(SOME, field, k1[field], keyShapes) })).toBe(baseline.library);
  });

  test.each(KEY_PRIVATE.filter((field) => kindOf(field) !== 'relation'))("sorting images by a key's %s: the order without it", async (field) => {
    for (const sort of [`api_key.${field}:desc`, [{ api_key: { [field]: 'asc' } }]]) expect([sort, await imageList(editor, { sort })]).toEqual([sort, baseline.list]);
    // Beside another sort: that one alone.
    const sort = ['id:asc', `api_key.${field}:desc`];
    expect(await imageList(editor, { sort })).toBe(`4: ${imageIds.join(',')}`);
  });

  test('what names a key still filters and sorts: its name, prefix and state', async () => {
    expect(await imageList(editor, { filters: { api_key: { name: { $eq: 'k2' } } } })).toMatch(/^2: /);
    expect(await imageList(editor, { filters: { $or: [{ api_key: { name: { $startsWith: 'k1' } } }] } })).toMatch(/^1: /);
    expect(await imageList(editor, { filters: { api_key: { active: { $eq: true } } } })).toMatch(/^4: /);
    expect(await imageList(editor, { sort: 'api_key.name:desc' })).toMatch(new RegExp(`^4: ${imageIds[3]},`));
  });

  test('an Editor cannot open key entries at all (the list answers 403)', async () => {
    expect((await app.http.get(KEY_LIST).set(editor)).status).toBe(403);
  });
});

describe("an Editor queries no site user's field but those that name it", () => {
  let baseline: { list: string; owners: string; library: string; picker: string };
  beforeAll(async () => {
    baseline = { list: await imageList(editor), owners: await imageOwners(editor), library: await mediaLibrary(editor), picker: await userPicker(editor) };
    expect(baseline.picker).toMatch(/^2: /);
    expect(baseline.owners).toContain(`${imageIds[0]}:${u1.id}`);
    expect(baseline.owners).toContain(`${imageIds[3]}:-`);
  });

  test.each(cases(USER_PRIVATE))("filters on a site user's %s, %s operators: the image list answers as without them", async (field, family) => {
    expect(await imageList(editor, { filters: every([family], field, u1[field], userShapes) })).toBe(baseline.list);
  });

  test.each(USER_PRIVATE)("a site user's %s: sorts, populate's filters, the user picker and the Media Library answer as without it", async (field) => {
    if (kindOf(field) !== 'relation') {
      for (const sort of [`owner_user.${field}:asc`, `owner_user.${field}:desc`, [{ owner_user: { [field]: 'asc' } }]]) {
        expect([sort, await imageList(editor, { sort })]).toEqual([sort, baseline.list]);
      }
      for (const sort of [`${field}:asc`, `${field}:desc`]) expect([sort, await userPicker(editor, { sort })]).toEqual([sort, baseline.picker]);
    }
    expect(await userPicker(editor, { filters: every(SOME, field, u1[field], userRootShapes) })).toBe(baseline.picker);
    expect(await imageOwners(editor, every(SOME, field, u1[field], (name, c) => [{ [name]: c }, { $not: { [name]: c } }]))).toBe(baseline.owners);
    // The Media Library refuses any filter on a password field outright (Strapi's own check): 400 whatever the value.
    expect([baseline.library, 'refused']).toContain(await mediaLibrary(editor, { fields: ['id'], filters: every(SOME, field, u1[field], userShapes) }));
  });

  test('what names a site user still filters and sorts: its id and username', async () => {
    expect(await imageList(editor, { filters: { owner_user: { username: { $eq: 'violet' } } } })).toMatch(/^2: /);
    expect(await imageList(editor, { filters: { $or: [{ owner_user: { id: { $eq: u1.id } } }] } })).toMatch(/^1: /);
    const owned = { owner_user: { id: { $notNull: true } } };
    expect(await imageList(editor, { filters: owned, sort: ['owner_user.username:desc', 'id:asc'] })).toBe(`3: ${imageIds[1]},${imageIds[2]},${imageIds[0]}`);
  });

  test('an Editor cannot open site users at all (the list answers 403)', async () => {
    expect((await app.http.get(USER_LIST).set(editor)).status).toBe(403);
  });
});

describe('nobody queries server-only fields, not even a Super Admin', () => {
  let baseline: { list: string; library: string; keys: string; picker: string };
  beforeAll(async () => {
    baseline = { list: await imageList(superAdmin), library: await mediaLibrary(superAdmin), keys: await keyList(superAdmin), picker: await keyPicker(superAdmin) };
    expect(baseline.list).toMatch(/^4: /);
    expect(baseline.keys).toMatch(/^4: /);
  });

  describe('a Super Admin', () => {
    test.each(cases(IMAGE_SERVER_ONLY))("filters on an image's %s, %s operators: the image list answers as without them", async (field, family) => {
      expect(await imageList(superAdmin, { filters: every([family], field, claimed[field], imageShapes) })).toBe(baseline.list);
    });

    test.each(cases(KEY_SERVER_ONLY))("filters on a key's %s, %s operators: the image list and the key list answer as without them", async (field, family) => {
      expect(await imageList(superAdmin, { filters: every([family], field, k1[field], keyShapes) })).toBe(baseline.list);
      expect(await keyList(superAdmin, { filters: every([family], field, k1[field], keyRootShapes) })).toBe(baseline.keys);
    });

    test.each(IMAGE_SERVER_ONLY)("filters on an image's %s: the key list and the Media Library answer as without them", async (field) => {
      const throughImages = (name: string, c: unknown): Filter[] => [{ images: { [name]: c } }, { images: { $or: [{ [name]: c }] } }, { $not: { images: { [name]: c } } }];
      expect(await keyList(superAdmin, { filters: every(SOME, field, claimed[field], throughImages) })).toBe(baseline.keys);
      expect(await mediaLibrary(superAdmin, { fields: ['id'], filters: every(SOME, field, claimed[field], imageShapes) })).toBe(baseline.library);
    });

    test.each(KEY_SERVER_ONLY)("filters on a key's %s: the key picker and the Media Library answer as without them", async (field) => {
      expect(await keyPicker(superAdmin, every(SOME, field, k1[field], keyRootShapes))).toBe(baseline.picker);
      expect(await mediaLibrary(superAdmin, { fields: ['id'], filters: every(SOME, field, k1[field], keyShapes) })).toBe(baseline.library);
    });

    test.each([...IMAGE_SERVER_ONLY, ...KEY_SERVER_ONLY.map((field) => `api_key.${field}`)])('sorting images by %s: the order without it', async (path) => {
      for (const sort of [`${path}:desc`, `${path}:asc`, [path.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), 'desc')]]) {
        expect([sort, await imageList(superAdmin, { sort })]).toEqual([sort, baseline.list]);
      }
    });

    test.each(KEY_SERVER_ONLY)('sorting keys by %s: the order without it', async (field) => {
      for (const sort of [`${field}:asc`, `${field}:desc`, { [field]: 'desc' }]) expect([sort, await keyList(superAdmin, { sort })]).toEqual([sort, baseline.keys]);
    });

    test.each(['delete_hash', 'source_digest', 'expiry_claim'])('searching images (_q) for part of %s finds nothing', async (field) => {
      expect(await imageList(superAdmin, { _q: String(claimed[field]).slice(2, 12) })).toBe('0: ');
    });

    test.each(KEY_SERVER_ONLY)('searching keys (_q) for part of %s finds nothing', async (field) => {
      expect(await keyList(superAdmin, { _q: String(k1[field]).slice(4, 14) })).toBe('0: ');
    });

    test.each(USER_SECRETS)("a site user's %s: filters, sorts and searches through images and in the users list answer as without it", async (field) => {
      const users = await userList(superAdmin);
      expect(users).toMatch(/^2: /);
      expect(await imageList(superAdmin, { filters: every(FAMILIES, field, u1[field], userShapes) })).toBe(baseline.list);
      expect(await userList(superAdmin, { filters: every(FAMILIES, field, u1[field], userRootShapes) })).toBe(users);
      for (const sort of [`owner_user.${field}:asc`, `owner_user.${field}:desc`]) expect([sort, await imageList(superAdmin, { sort })]).toEqual([sort, baseline.list]);
      expect(await userList(superAdmin, { sort: `${field}:desc` })).toBe(users);
      expect(await userList(superAdmin, { _q: String(u1[field]).slice(3, 12) })).toBe('0: ');
    });
  });

  describe('an Editor', () => {
    test.each(IMAGE_SERVER_ONLY)("filters on an image's %s: the image list and the Media Library answer as without them", async (field) => {
      expect(await imageList(editor, { filters: every(SOME, field, claimed[field], imageShapes) })).toBe(baseline.list);
      expect(await mediaLibrary(editor, { fields: ['id'], filters: every(SOME, field, claimed[field], imageShapes) })).toBe(baseline.library);
    });

    test.each(KEY_SERVER_ONLY)("filters on a key's %s: the image list and the key picker answer as without them", async (field) => {
      expect(await imageList(editor, { filters: every(SOME, field, k1[field], keyShapes) })).toBe(baseline.list);
      expect(await keyPicker(editor, every(SOME, field, k1[field], keyRootShapes))).toBe(await keyPicker(editor));
    });

    test.each(['delete_hash', 'source_digest', 'expiry_claim'])('sorting and searching images by %s: as without it', async (field) => {
      expect(await imageList(editor, { sort: `${field}:desc` })).toBe(baseline.list);
      expect(await imageList(editor, { sort: `${field}:asc` })).toBe(baseline.list);
      expect(await imageList(editor, { _q: String(claimed[field]).slice(2, 12) })).toBe('0: ');
    });
  });
});

describe('a Super Admin queries the key fields it may read', () => {
  test("filters, sorts and searches keys by contact, in the key list and through images", async () => {
    expect(await keyList(superAdmin, { filters: { contact: { $startsWith: 'alice' } } })).toMatch(/^1: /);
    expect(await keyList(superAdmin, { filters: { $or: [{ rate_limit: { $eq: '7/minute' } }, { quota_images: { $lt: 150 } }] } })).toMatch(/^2: /);
    expect(await keyList(superAdmin, { _q: 'alice@' })).toMatch(/^1: /);
    const k2 = await app.strapi.db.query(KEY_UID).findOne({ where: { name: 'k2' }, select: ['id'] });
    expect(await keyList(superAdmin, { filters: { contact: { $notNull: true } }, sort: 'contact:desc' })).toBe(`2: ${k2.id},${k1.id}`);
    expect(await imageList(superAdmin, { filters: { api_key: { contact: { $eq: 'bob@example.com' } } } })).toMatch(/^2: /);
    expect(await keyPicker(superAdmin, { contact: { $startsWith: 'bob' } })).toMatch(/^1: /);
  });

  test("filters and sorts images by their site user's email and role", async () => {
    expect(await imageList(superAdmin, { filters: { owner_user: { email: { $startsWith: 'umber@' } } } })).toBe(`1: ${imageIds[0]}`);
    expect(await imageList(superAdmin, { filters: { owner_user: { role: { type: { $eq: 'public' } } } } })).toMatch(/^2: /);
    const owned = { owner_user: { id: { $notNull: true } } };
    expect(await imageList(superAdmin, { filters: owned, sort: ['owner_user.email:desc', 'id:asc'] })).toBe(`3: ${imageIds[1]},${imageIds[2]},${imageIds[0]}`);
    expect(await userPicker(superAdmin, { filters: { email: { $startsWith: 'umber@' } } })).toBe(`1: ${u1.id}`);
  });
});

describe('an Author', () => {
  test("in the Media Library, its own files' images cannot be filtered by their key's contact", async () => {
    // k1 belongs to the Author: its upload is the Author's file.
    const baseline = await mediaLibrary(author);
    expect(baseline).toMatch(/^\[\[\d+,\[\d+\]\]\]$/);
    for (const contact of ['alice@example.com', 'nobody']) {
      expect(await mediaLibrary(author, { fields: ['id'], filters: { api_key: { contact: { $eq: contact } } } })).toBe(baseline);
      expect(await mediaLibrary(author, { fields: ['id'], filters: { $not: { api_key: { contact: { $eq: contact } } } } })).toBe(baseline);
    }
  });
});

describe('a role that may read some fields of key entries and site users', () => {
  let reader: Auth;
  beforeAll(async () => {
    const made = await app.http.post('/admin/roles').set(superAdmin).send({ name: 'Key reader', description: 'names of keys only' });
    expect(made.status).toBe(201);
    const role = made.body.data;
    const permissions = [
      { action: READ, subject: KEY_UID, properties: { fields: ['name', 'key_prefix'] }, conditions: [] },
      { action: READ, subject: USER_UID, properties: { fields: ['username'] }, conditions: [] },
    ];
    expect((await app.http.put(`/admin/roles/${role.id}/permissions`).set(superAdmin).send({ permissions })).status).toBe(200);
    reader = { Authorization: `Bearer ${await adminToken(app, 'reader@img.test', 'Reader-pass-1234', role.code)}` };
  });

  test('searches keys by what it may read only', async () => {
    expect(await keyList(reader)).toMatch(/^4: /);
    expect(await keyList(reader, { _q: 'alice' })).toBe('0: ');
    expect(await keyList(reader, { _q: 'purpose' })).toBe('0: ');
    // A key's quota is 100, which it may not read; its document id and key prefix (random) it may, and one can hold "100".
    const rows: Array<{ id: number; document_id: string; key_prefix: string }> = await app.strapi.db.connection('image_api_keys').select('id', 'document_id', 'key_prefix').orderBy('id');
    const byId = rows.filter((row) => `${row.document_id} ${row.key_prefix}`.includes('100')).map((row) => row.id);
    expect(await keyList(reader, { _q: '100' })).toBe(`${byId.length}: ${byId.join(',')}`);
    expect(await keyList(reader, { _q: 'test key' })).toMatch(/^1: /);
    expect(await keyList(reader, { filters: { contact: { $startsWith: 'alice' } } })).toBe(await keyList(reader));
  });

  test('searches site users by their username only', async () => {
    expect(await userList(reader)).toMatch(/^2: /);
    expect(await userList(reader, { _q: 'umber@site' })).toBe('0: ');
    expect(await userList(reader, { _q: 'github' })).toBe('0: ');
    expect(await userList(reader, { _q: 'umb' })).toMatch(/^1: /);
  });
});
