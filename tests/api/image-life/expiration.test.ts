/**
 * Expiration (docs/api.md, "Expiration"): asked per upload or by the key's default, refused out of
 * range (150), reported in the JSON, 404 from the instant of expiry, and swept away by every instance
 * at once without an image removed twice.
 */
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { startChildApp, type ChildApp } from '../../helpers/child-app';
import { png } from '../../helpers/fixtures';
import { expectUploadJson } from '../../helpers/image-json';
import { NOTHING, tracesOf, whole } from '../../helpers/leftovers';

const KEY_UID = 'plugin::image-api.api-key';
let picture: Buffer;

const app = useApp();
beforeAll(async () => {
  picture = await png(64, 64);
});

const upload = (fields: Record<string, string> = {}, apiKey = app.key) => app.upload(apiKey, picture, { fields });
const gmt = (text: string) => new Date(`${text.replace(' ', 'T')}Z`).getTime();
/**
 * Makes an image expired now, as time would. Served files look their image up once a second
 * (delivery/image-sources.ts) and compare its expiry with the clock on every request: a real
 * expiry is exact, but a moved `expires_at` is seen within that second, so the lookup is dropped.
 */
const expire = async (idEncoded: string, secondsAgo = 1) => {
  await app.strapi.db.connection('image_api_images').where('id_encoded', idEncoded).update({ expires_at: new Date(Date.now() - secondsAgo * 1000) });
  const { name } = await app.strapi.db.connection('image_api_images').where('id_encoded', idEncoded).first('name');
  app.strapi.plugin('image-api').service('image-sources').forget([name]);
};

describe('asked with the upload', () => {
  test.each([
    ['600', 600],
    ['PT10M', 600],
    ['P1D', 86_400],
    ['P1W', 604_800],
  ])('expiration=%s: expiration_date_gmt is %d seconds after date_gmt, and the record expires then', async (expiration, seconds) => {
    const res = await upload({ expiration });
    const image = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
    expect((gmt(image.expiration_date_gmt) - gmt(image.date_gmt)) / 1000).toBe(seconds);
    const row = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: image.id_encoded } });
    expect(Math.round((new Date(row.expires_at).getTime() - gmt(image.date_gmt)) / 1000)).toBeGreaterThanOrEqual(seconds);
    expect(Math.round((new Date(row.expires_at).getTime() - gmt(image.date_gmt)) / 1000)).toBeLessThanOrEqual(seconds + 1);
  });

  test('none asked, none set on the key: it never expires', async () => {
    const image = (await upload()).body.image;
    expect(image.expiration_date_gmt).toBeNull();
  });

  test.each(['59', '15552001', 'P1Y', 'soon', '-60', 'PT'])('expiration=%s: 400/150 with the range, and nothing stored', async (expiration) => {
    const before = await app.strapi.db.query('plugin::image-api.image').count();
    const res = await upload({ expiration });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ message: 'Invalid expiration: seconds or an ISO 8601 duration (PT10M, P1D), from 60 to 15552000 seconds', code: 150 });
    expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(before);
  });
});

describe("the key's default expiration", () => {
  let auth: Record<string, string>;
  beforeAll(async () => {
    auth = { Authorization: `Bearer ${await adminToken(app)}` };
  });

  async function keyWith(name: string, default_expiration: string) {
    const res = await app.http.post(`/content-manager/collection-types/${KEY_UID}`).set(auth).send({ name, default_expiration });
    expect(res.status).toBe(201);
    return (await app.http.get(`/image-api/api-keys/${res.body.data.documentId}/key`).set(auth)).body.data.key as string;
  }

  test('applies when the upload asks none (or an empty one); an upload\'s own wins', async () => {
    const daily = await keyWith('expires daily', 'P1D');
    for (const fields of [{}, { expiration: '' }] as Array<Record<string, string>>) {
      const image = (await upload(fields, daily)).body.image;
      expect((gmt(image.expiration_date_gmt) - gmt(image.date_gmt)) / 1000).toBe(86_400);
    }
    const own = (await upload({ expiration: '3600' }, daily)).body.image;
    expect((gmt(own.expiration_date_gmt) - gmt(own.date_gmt)) / 1000).toBe(3600);
  });

  test.each(['30', 'P1Y', 'tomorrow'])('a default of %j is refused when the entry is saved, on the field', async (default_expiration) => {
    const res = await app.http.post(`/content-manager/collection-types/${KEY_UID}`).set(auth).send({ name: `bad default ${default_expiration}`, default_expiration });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([expect.objectContaining({ path: ['default_expiration'], message: expect.stringMatching(/^Default expiration: Invalid expiration/) })]);
  });

  test('a default wider than the range allowed since is held to it', async () => {
    const weekly = await keyWith('expires weekly', 'P7D');
    app.strapi.config.set('plugin::image-api.maxExpiration', 86_400);
    try {
      const image = (await upload({}, weekly)).body.image;
      expect((gmt(image.expiration_date_gmt) - gmt(image.date_gmt)) / 1000).toBe(86_400);
    } finally {
      app.strapi.config.set('plugin::image-api.maxExpiration', 15_552_000);
    }
  });
});

describe('from the instant of expiry', () => {
  test('the viewer, the delete link and the API delete answer 404; the sweep then removes everything', async () => {
    const image = (await upload({ expiration: '600' })).body.image;
    expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(200);
    expect((await app.http.get(app.pathOf(image.url))).status).toBe(200);
    await expire(image.id_encoded);
    expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(404);
    expect((await app.http.get(app.pathOf(image.delete_url))).status).toBe(404);
    expect((await app.http.delete(app.pathOf(image.delete_url))).status).toBe(404);
    expect((await app.http.post('/api/1/delete').type('form').send({ key: app.key, id: image.id_encoded })).status).toBe(404);
    // The direct URLs too, though the files are still on disk until the sweep (issue 23, item 10).
    for (const url of [image.url, image.thumb.url, image.medium.url]) {
      const res = await app.http.get(app.pathOf(url));
      expect([url, res.status, res.headers['cache-control']]).toEqual([url, 404, 'no-store']);
      expect((await app.http.head(app.pathOf(url))).status).toBe(404);
    }
    // Nothing deleted by those refusals; the views were not counted.
    expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', 5));
    const row = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: image.id_encoded } });
    expect(Number(row.views)).toBe(1);

    expect(await app.strapi.plugin('image-api').service('expiry-sweep').run()).toBeGreaterThanOrEqual(1);
    expect(await tracesOf(app, image.name)).toEqual(NOTHING);
  });

  test('the sweep leaves images that have not expired', async () => {
    const [soon, never] = [(await upload({ expiration: '600' })).body.image, (await upload()).body.image];
    expect(await app.strapi.plugin('image-api').service('expiry-sweep').run()).toBe(0);
    for (const image of [soon, never]) expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', 5));
    for (const image of [soon, never]) expect((await app.http.get(app.pathOf(image.thumb.url))).status).toBe(200);
  });
});

describe('two instances sweeping at once', () => {
  const children: ChildApp[] = [];
  afterAll(async () => {
    await Promise.all(children.map((child) => child.stop()));
  });

  test('remove every expired image exactly once, without an error', async () => {
    const images = [];
    for (let i = 0; i < 30; i++) images.push((await upload({ expiration: '600' })).body.image);
    const keeper = (await upload({ expiration: '600' })).body.image;
    const knex = app.strapi.db.connection;
    await knex('image_api_images').whereIn('id_encoded', images.map((image) => image.id_encoded)).update({ expires_at: new Date(Date.now() - 1000) });

    // Two more processes on the same database and uploads folder, sweeping every second.
    const env = { ...process.env, PUBLIC_DIR: app.publicDir, IMAGE_API_EXPIRY_SWEEP_SECONDS: '1', LOG_LEVEL: 'info' };
    children.push(...(await Promise.all([startChildApp(env), startChildApp(env)])));
    const deadline = Date.now() + 30_000;
    while (Number((await knex('image_api_images').whereIn('id_encoded', images.map((image) => image.id_encoded)).count({ n: '*' }))[0]?.n) > 0) {
      if (Date.now() > deadline) throw new Error('the expired images were not swept');
      await new Promise((r) => setTimeout(r, 250));
    }
    await new Promise((r) => setTimeout(r, 1500)); // one more sweep each: nothing left to remove

    const swept = children.map((child) => [...child.output().matchAll(/swept (\d+) expired image/g)].reduce((n, m) => n + Number(m[1]), 0));
    expect(swept[0] + swept[1]).toBe(images.length);
    for (const child of children) expect(child.output()).not.toMatch(/\berror\b/i);
    for (const image of images) expect(await tracesOf(app, image.name)).toEqual(NOTHING);
    expect(await tracesOf(app, keeper.name)).toEqual(whole(keeper.name, 'png', 5));
  }, 90_000);
});
