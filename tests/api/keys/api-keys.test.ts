/** Keys as Content Manager entries: issue, reveal, regenerate, revoke, expire, delete; usage and owners. */
import http from 'http';
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';

const KEY_UID = 'plugin::image-api.api-key';
let app: TestApp;
let auth: Record<string, string>;
let image: Buffer;

beforeAll(async () => {
  // 20 uploads at once below: past the default admission limit (16), tested in load-and-slow-bodies.
  app = await startApp({ IMAGE_API_MAX_REQUESTS_IN_FLIGHT: '64' });
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
  image = await png(40, 30);
});
afterAll(async () => {
  await app?.stop();
});

const upload = (key: string) => app.upload(key, image);
const cm = `/content-manager/collection-types/${KEY_UID}`;
const row = (name: string) => app.strapi.db.query(KEY_UID).findOne({ where: { name } });

async function createInPanel(data: Record<string, unknown>) {
  const res = await app.http.post(cm).set(auth).send(data);
  expect(res.status).toBe(201);
  const documentId: string = res.body.data.documentId;
  const revealed = await app.http.get(`/image-api/api-keys/${documentId}/key`).set(auth);
  expect(revealed.status).toBe(200);
  return { documentId, key: revealed.body.data.key as string, entry: res.body.data };
}

describe('issuing in the admin panel', () => {
  test('creating an entry generates the key on the server; it is stored hashed and encrypted, never in clear', async () => {
    const { key, entry } = await createInPanel({ name: 'Editor plugin', description: 'images in blog posts', contact: 'ops@example.com' });
    expect(key).toMatch(/^img_[A-Za-z0-9]{32}$/);
    expect(entry.key_prefix).toBe(key.slice(0, 8));
    expect(entry.key_last4).toBe(key.slice(-4));
    expect(entry).not.toHaveProperty('key_hash');
    expect(entry).not.toHaveProperty('key_encrypted');
    const stored = await row('Editor plugin');
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.key_encrypted).toBeTruthy();
    expect(stored).toMatchObject({ active: true, upload_count: 0, contact: 'ops@example.com', description: 'images in blog posts' });
    expect((await upload(key)).status).toBe(200);
  });

  test('the key can be revealed again, but only by an admin', async () => {
    const { documentId, key } = await createInPanel({ name: 'Reveal me' });
    const again = await app.http.get(`/image-api/api-keys/${documentId}/key`).set(auth);
    expect(again.body.data.key).toBe(key);
    expect(again.headers['cache-control']).toBe('no-store');
    expect((await app.http.get(`/image-api/api-keys/${documentId}/key`)).status).toBe(401);
    expect((await app.http.get(`/image-api/api-keys/${documentId}/key`).set({ Authorization: 'Bearer nope' })).status).toBe(401);
    expect((await app.http.get('/image-api/api-keys/nosuchdocument/key').set(auth)).status).toBe(404);
  });

  test('regenerate issues a new secret for the same entry; the old one stops working at once', async () => {
    const { documentId, key: old } = await createInPanel({ name: 'Rotate me' });
    const res = await app.http.post(`/image-api/api-keys/${documentId}/regenerate`).set(auth);
    expect(res.status).toBe(200);
    const fresh = res.body.data.key;
    expect(fresh).toMatch(/^img_/);
    expect(fresh).not.toBe(old);
    expect((await upload(old)).status).toBe(401);
    expect((await upload(fresh)).status).toBe(200);
    const revealed = await app.http.get(`/image-api/api-keys/${documentId}/key`).set(auth);
    expect(revealed.body.data.key).toBe(fresh);
    expect((await row('Rotate me')).key_prefix).toBe(fresh.slice(0, 8));
  });
});

describe('fields only the server writes', () => {
  test('the Content Manager cannot set a key\'s usage, dates or recognition fields, on create or on update', async () => {
    const { documentId, key } = await createInPanel({ name: 'Tamper', upload_count: 999, key_prefix: 'img_HACK', key_last4: 'HACK' } as any);
    expect((await upload(key)).status).toBe(200);
    const saved = await app.http
      .put(`${cm}/${documentId}`)
      .set(auth)
      .send({ upload_count: -5, last_used_at: '2001-01-01T00:00:00.000Z', key_prefix: 'img_HACK', key_last4: 'HACK', description: 'edited' });
    expect(saved.status).toBe(200);
    const stored = await row('Tamper');
    expect(stored).toMatchObject({ upload_count: 1, key_prefix: key.slice(0, 8), key_last4: key.slice(-4), description: 'edited' });
    expect(new Date(stored.last_used_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('revocation, expiry and deletion apply to the next request', () => {
  test('deactivating in the panel: 403 revoked', async () => {
    const { documentId, key } = await createInPanel({ name: 'Revoke in panel' });
    expect((await upload(key)).status).toBe(200);
    expect((await app.http.put(`${cm}/${documentId}`).set(auth).send({ active: false })).status).toBe(200);
    const res = await upload(key);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ message: 'API key revoked', code: 100 });
  });

  test('revoked while its body arrives: the upload is refused 403 once the body is in, nothing stored', async () => {
    const { documentId, key } = await createInPanel({ name: 'Revoked mid-body' });
    const server = app.strapi.server.httpServer;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('net').AddressInfo;
    const boundary = 'midbody';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="source"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const before = await app.strapi.db.query('plugin::image-api.image').count({});
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/api/1/upload', headers: { 'X-API-Key': key, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + image.length + tail.length } },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }
      );
      req.on('error', reject);
      // The key is checked (and passes) before the body; the rest of the body comes after the revocation.
      req.write(Buffer.concat([head, image.subarray(0, 10)]));
      setTimeout(async () => {
        expect((await app.http.put(`${cm}/${documentId}`).set(auth).send({ active: false })).status).toBe(200);
        req.end(Buffer.concat([image.subarray(10), tail]));
      }, 300);
    });
    const res = await answer;
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error).toEqual({ message: 'API key revoked', code: 100 });
    expect(await app.strapi.db.query('plugin::image-api.image').count({})).toBe(before);
  });

  test('an expiry date in the past: 403 expired; in the future: accepted until then', async () => {
    // Far enough ahead that a loaded machine creates the key and uploads before it (1.5 s was not,
    // once); then waited out to the millisecond, however long that took.
    const expiresAt = Date.now() + 5000;
    const { documentId, key } = await createInPanel({ name: 'Expiring', expires_at: new Date(expiresAt).toISOString() });
    expect((await upload(key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 100));
    const res = await upload(key);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ message: 'API key expired', code: 100 });
    await app.http.put(`${cm}/${documentId}`).set(auth).send({ expires_at: null });
    expect((await upload(key)).status).toBe(200);
  });

  test('deleting the entry: 401', async () => {
    const { documentId, key } = await createInPanel({ name: 'Delete me' });
    expect((await app.http.delete(`${cm}/${documentId}`).set(auth)).status).toBe(200);
    const res = await upload(key);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe('Invalid API key');
  });
});

describe('usage', () => {
  test('upload count and last use are exact under concurrent uploads; refused uploads do not count', async () => {
    const { key } = await createInPanel({ name: 'Busy' });
    const before = Date.now();
    const results = await Promise.all(Array.from({ length: 20 }, () => upload(key)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    await app.http.post('/api/1/upload').set('X-API-Key', key).type('form').send({ source: 'bm90IGFuIGltYWdl' }).expect(400);
    const stored = await row('Busy');
    expect(stored.upload_count).toBe(20);
    expect(new Date(stored.last_used_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const images = await app.strapi.db.query('plugin::image-api.image').count({ where: { api_key: { id: stored.id } } });
    expect(images).toBe(20);
  });
});

describe('owners', () => {
  test('images uploaded with an owned key belong to the owner: the file\'s creator and the image record', async () => {
    const admin = await app.strapi.db.query('admin::user').findOne({ where: { email: 'admin@img.test' } });
    const { key } = await createInPanel({ name: 'Owned', owner: { connect: [{ id: admin.id }] } });
    expect((await row('Owned')).id).toBeDefined();
    const res = await upload(key);
    expect(res.status).toBe(200);
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({
      where: { id_encoded: res.body.image.id_encoded },
      populate: { owner: true, file: { populate: { createdBy: true } } },
    });
    expect(record.owner.email).toBe('admin@img.test');
    expect(record.file.createdBy.email).toBe('admin@img.test');

    // The Media Library's own API reports it.
    const listed = await app.http.get(`/upload/files/${record.file.id}`).set(auth);
    expect(listed.status).toBe(200);
    expect(listed.body.createdBy).toMatchObject({ firstname: 'Ada' });
  });

  test('a key owned by a users-permissions user: its images are that user\'s', async () => {
    const role = await app.strapi.db.query('plugin::users-permissions.role').findOne({ where: { type: 'authenticated' } });
    const user = await app.strapi.db.query('plugin::users-permissions.user').create({
      data: { username: 'bob', email: 'bob@img.test', provider: 'local', confirmed: true, role: role.id },
    });
    const { key } = await createInPanel({ name: 'Owned by a site user', owner_user: { connect: [{ id: user.id }] } });
    const res = await upload(key);
    expect(res.status).toBe(200);
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({
      where: { id_encoded: res.body.image.id_encoded },
      populate: { owner_user: true, owner: true },
    });
    expect(record.owner_user.email).toBe('bob@img.test');
    expect(record.owner).toBeNull();
  });

  test('images uploaded with an unowned key have no owner', async () => {
    const { key } = await createInPanel({ name: 'Unowned' });
    const res = await upload(key);
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({
      where: { id_encoded: res.body.image.id_encoded },
      populate: { owner: true },
    });
    expect(record.owner).toBeNull();
  });
});

describe("a key's rate limit: one grammar, checked when the entry is saved", () => {
  const saved = (name: string, rate_limit: string) => app.http.post(cm).set(auth).send({ name, rate_limit });

  test.each(['0/minute', '5/week', '50', 'minute/50', '-1/day', '5/minute;1/hour'])('%j is refused with the format in the message', async (spec) => {
    const res = await saved(`bad limit ${spec}`, spec);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/rate limit/i);
    expect(res.body.error.message).toMatch(/50\/minute/);
    // Named as Strapi names a field's error, so the panel shows it on the field.
    expect(res.body.error.details.errors).toEqual([expect.objectContaining({ path: ['rate_limit'], message: res.body.error.message })]);
    expect(await row(`bad limit ${spec}`)).toBeNull();
  });

  test.each(['OFF', ' 5 / Minute ', '2/second, 100/day'])('%j is accepted, and the upload honours it', async (spec) => {
    const res = await saved(`good limit ${spec}`, spec);
    expect(res.status).toBe(201);
    const revealed = await app.http.get(`/image-api/api-keys/${res.body.data.documentId}/key`).set(auth);
    const answer = await upload(revealed.body.data.key);
    expect(answer.status).toBe(200);
    if (spec === 'OFF') expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    else expect(answer.headers['x-ratelimit-limit']).toBe(spec.includes('second') ? '2' : '5');
  });

  test('every wrong field of the plugin\'s own grammars is named at once, each on its field, and nothing is saved', async () => {
    const res = await app.http.post(cm).set(auth).send({ name: 'two wrongs', rate_limit: '5/week', default_expiration: 'soon' });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.errors.map((error: { path: string[] }) => error.path[0]).sort();
    expect(paths).toEqual(['default_expiration', 'rate_limit']);
    expect(res.body.error.message).toMatch(/^2 errors: /);
    for (const error of res.body.error.details.errors) expect(res.body.error.message).toContain(error.message);
    expect(await row('two wrongs')).toBeNull();
  });

  test('an update is checked too, through the panel and through the query engine', async () => {
    const { documentId } = await createInPanel({ name: 'Updated limit' });
    const res = await app.http.put(`${cm}/${documentId}`).set(auth).send({ rate_limit: '0/minute' });
    expect(res.status).toBe(400);
    await expect(app.strapi.db.query(KEY_UID).update({ where: { documentId }, data: { rate_limit: '3/fortnight' } })).rejects.toThrow(/rate limit/i);
    expect((await row('Updated limit')).rate_limit).toBeNull();
  });
});
