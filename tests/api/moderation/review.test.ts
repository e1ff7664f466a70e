/**
 * Moderation's review in the admin (docs/moderation.md, "Review"; docs/security.md's threat model):
 * the queue of flagged, held and reported images, oldest first, with their scores, reports and key;
 * their thumbnails for reviewers only; approve (a held image is served again), take down (a deletion:
 * files and rows gone, `image-api.image.takedown` with the reason), block (a takedown that lists the
 * stored original's SHA-256, MD5 and PDQ: the same file uploaded again is refused), hash list
 * imports; every route behind `images.review`, which an Editor has only once given it.
 *
 * Classification is the upload's: these tests set the moderation fields of their images directly.
 */
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { jpeg, png } from '../../helpers/fixtures';
import { landscapePhoto } from '../../helpers/moderation-fixtures';
import { parseSamples, sample } from '../../helpers/prometheus-text';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../helpers/webhook-receiver';
import { request } from '../../../tools/support/http/http-client';
import type { AddressInfo } from 'net';
import type { UploadedImage } from '../../helpers/image-json';

const REVIEW = 'plugin::image-api.images.review';
const SCORES = { drawing: 0.01, hentai: 0.02, neutral: 0.07, porn: 0.85, sexy: 0.05 };

const app = useApp();
let receiver: WebhookReceiver;
let admin: Record<string, string>;
let editor: Record<string, string>;
let base: string;

beforeAll(async () => {
  // Reports come from loopback addresses of their own (one report per address and image).
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.strapi.server.httpServer.address() as AddressInfo).port}`;
  receiver = await startWebhookReceiver();
  admin = { Authorization: `Bearer ${await adminToken(app)}` };
  editor = { Authorization: `Bearer ${await adminToken(app, 'editor@img.test', 'Editor-pass-1234', 'strapi-editor')}` };
  const res = await app.http
    .post('/admin/webhooks')
    .set(admin)
    .send({ name: 'review', url: receiver.url, headers: {}, events: ['image-api.image.takedown', 'image-api.image.delete'] });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await receiver?.close();
});

type Image = UploadedImage;

async function upload(bytes?: Buffer, filename = 'a.jpg'): Promise<Image> {
  const res = await app.upload(app.key, bytes ?? (await jpeg(640, 480)), { filename });
  expect(res.status).toBe(200);
  return res.body.image;
}

/** A viewer's report, as the viewer page's form posts it, from `from`. */
async function report(image: Image, fields: string, from: string): Promise<void> {
  const res = await request(`${base}/image/${image.id_encoded}/report`, {
    method: 'POST',
    from,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(fields) },
    body: fields,
  });
  expect(res.status).toBe(303);
}

const imageRow = async (id: string) => (await app.strapi.db.connection('image_api_images').where('id_encoded', id).first()) as Record<string, any> | undefined;

/** Puts the image in the queue as the upload's screening or a report would. */
async function queue(image: Image, moderation: 'flagged' | 'held' | 'none', since: Date, score: number | null = 0.9): Promise<void> {
  await app.strapi.db
    .connection('image_api_images')
    .where('id_encoded', image.id_encoded)
    .update({ moderation, nsfw: true, nsfw_score: score, nsfw_scores: score === null ? null : JSON.stringify(SCORES), review_since: since });
  // Every instance's lookups would forget it within a second; this one now.
  app.strapi.plugin('image-api').service('image-changes').changed('edited', [image.name]);
}

const metric = async (action: string) =>
  sample(parseSamples((await app.strapi.plugin('image-api').service('metrics').exposition()).body), `image_api_moderation_total{action="${action}"}`) ?? 0;

const filesOf = (image: Image) => fs.readdirSync(app.uploadsDir).filter((name) => name.startsWith(`${image.name}.`) || name.startsWith(`${image.name}_`));

/** Clears the queue: every test starts with its own images only. */
afterEach(async () => {
  await app.strapi.db.connection('image_api_images').whereNotNull('review_since').update({ review_since: null });
});

describe('the queue', () => {
  test('flagged, held and reported images, oldest first, each with its scores, reports, key, size and a thumbnail route; pages', async () => {
    const held = await upload(await jpeg(640, 480));
    const flagged = await upload(await png(300, 200), 'b.png');
    const other = await upload();
    await queue(held, 'held', new Date('2026-01-01T00:00:00Z'));
    await queue(flagged, 'flagged', new Date('2026-01-02T00:00:00Z'), 0.5);
    // Reported twice from two addresses (the viewer's route; the report counts and queues it).
    await report(other, 'reason=spam&text=Buy+now', '127.0.0.21');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await report(other, 'reason=hate', '127.0.0.22');
    const otherRow = await imageRow(other.id_encoded);
    expect(otherRow!.review_since).not.toBeNull();

    const res = await app.http.get('/image-api/review/queue').set(admin);
    expect(res.status).toBe(200);
    const { items, page, pageSize, total } = res.body.data;
    expect([page, pageSize, total]).toEqual([1, 20, 3]);
    expect(items.map((item: { idEncoded: string }) => item.idEncoded)).toEqual([held.id_encoded, flagged.id_encoded, other.id_encoded]);
    expect(items[0]).toEqual({
      idEncoded: held.id_encoded,
      createdAt: new Date((await imageRow(held.id_encoded))!.created_at).toISOString(),
      reviewSince: '2026-01-01T00:00:00.000Z',
      nsfw: true,
      moderation: 'held',
      nsfwScore: 0.9,
      nsfwScores: SCORES,
      reportCount: 0,
      reports: [],
      keyName: 'test key 1',
      width: 640,
      height: 480,
      thumbnailPath: `/image-api/review/images/${held.id_encoded}/thumbnail`,
    });
    expect([items[1].moderation, items[1].nsfwScore, items[1].width, items[1].height]).toEqual(['flagged', 0.5, 300, 200]);
    // Reported, not classified: its reports newest first, never who sent them.
    expect(items[2]).toMatchObject({ moderation: 'none', nsfw: false, nsfwScore: null, nsfwScores: null, reportCount: 2 });
    expect(items[2].reports).toEqual([
      { reason: 'hate', text: null, createdAt: expect.any(String) },
      { reason: 'spam', text: 'Buy now', createdAt: expect.any(String) },
    ]);
    expect(JSON.stringify(items[2])).not.toContain('127.0.0.2');

    const second = await app.http.get('/image-api/review/queue?page=2&pageSize=2').set(admin);
    expect(second.body.data).toMatchObject({ page: 2, pageSize: 2, total: 3 });
    expect(second.body.data.items.map((item: { idEncoded: string }) => item.idEncoded)).toEqual([other.id_encoded]);
    // Out of bounds: the defaults.
    const wild = await app.http.get('/image-api/review/queue?page=-1&pageSize=100000').set(admin);
    expect(wild.body.data).toMatchObject({ page: 1, pageSize: 20, total: 3 });
  });

  test("a held image's thumbnail for reviewers: its .th bytes, private and never stored, while its public URL answers 404", async () => {
    const held = await upload();
    await queue(held, 'held', new Date());
    expect((await app.http.get(app.pathOf(held.thumb.url))).status).toBe(404);
    const res = await app.http.get(`/image-api/review/images/${held.id_encoded}/thumbnail`).set(admin).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(res.body as Buffer, fs.readFileSync(path.join(app.uploadsDir, path.basename(held.thumb.url))))).toBe(0);
    expect((await app.http.get('/image-api/review/images/nosuchimage/thumbnail').set(admin)).status).toBe(404);
    expect((await app.http.get(`/image-api/review/images/${held.id_encoded}/thumbnail`)).status).toBe(401);
  });
});

test("approve: a held image's URLs answer 200 again; out of the queue; counted", async () => {
  const held = await upload();
  await queue(held, 'held', new Date());
  const urls = [held.url, held.thumb.url, held.medium.url].map((url) => app.pathOf(url));
  for (const url of urls) expect([url, (await app.http.get(url)).status]).toEqual([url, 404]);
  const before = await metric('approved');

  const res = await app.http.post(`/image-api/review/images/${held.id_encoded}/approve`).set(admin);
  expect([res.status, res.body]).toEqual([200, { data: { idEncoded: held.id_encoded, moderation: 'approved' } }]);
  const row = await imageRow(held.id_encoded);
  expect([row!.moderation, row!.review_since]).toEqual(['approved', null]);
  for (const url of urls) expect([url, (await app.http.get(url)).status]).toEqual([url, 200]);
  expect((await app.http.get(app.pathOf(held.url_viewer))).status).toBe(200);
  expect(await metric('approved')).toBe(before + 1);
  const queued = (await app.http.get('/image-api/review/queue').set(admin)).body.data;
  expect(queued.items.map((item: { idEncoded: string }) => item.idEncoded)).not.toContain(held.id_encoded);
  expect((await app.http.post('/image-api/review/images/nosuchimage/approve').set(admin)).status).toBe(404);
});

describe('take down', () => {
  test.each([
    ['no reason', {}],
    ['an empty reason', { reason: '   ' }],
    ['a reason past 500 characters', { reason: 'x'.repeat(501) }],
    ['a reason that is no string', { reason: ['a', 'b'] }],
  ])('%s: 400, nothing deleted', async (_case, body) => {
    const image = await upload();
    await queue(image, 'flagged', new Date());
    for (const action of ['takedown', 'block']) {
      const res = await app.http.post(`/image-api/review/images/${image.id_encoded}/${action}`).set(admin).send(body);
      expect([action, res.status, res.body.error?.message]).toEqual([action, 400, 'A reason is required: at most 500 characters']);
    }
    expect(await imageRow(image.id_encoded)).toBeDefined();
    expect(filesOf(image)).toHaveLength(3);
  });

  test('the files and rows go, reports too; the webhook says takedown with the reason (not delete); counted', async () => {
    const image = await upload();
    await queue(image, 'flagged', new Date());
    await report(image, 'reason=illegal', '127.0.0.31');
    expect(await app.strapi.db.connection('image_api_reports').where('image_id_encoded', image.id_encoded)).toHaveLength(1);
    expect(filesOf(image)).toHaveLength(3);
    const before = await metric('taken_down');

    const res = await app.http.post(`/image-api/review/images/${image.id_encoded}/takedown`).set(admin).send({ reason: '  Unlawful content  ' });
    expect([res.status, res.body]).toEqual([200, { data: { idEncoded: image.id_encoded, takenDown: true } }]);
    expect(await imageRow(image.id_encoded)).toBeUndefined();
    expect(filesOf(image)).toEqual([]);
    expect(await app.strapi.db.connection('image_api_reports').where('image_id_encoded', image.id_encoded)).toEqual([]);
    for (const url of [image.url, image.thumb.url]) expect((await app.http.get(app.pathOf(url))).status).toBe(404);
    expect(await metric('taken_down')).toBe(before + 1);

    const [hook] = await receiver.waitFor((hook: ReceivedWebhook) => hook.event === 'image-api.image.takedown' && hook.body.image?.name === image.name);
    expect(hook.body).toEqual({
      event: 'image-api.image.takedown',
      createdAt: expect.any(String),
      image: expect.objectContaining({ name: image.name, id_encoded: image.id_encoded, url: image.url, delete_url: null }),
      key_name: 'test key 1',
      reason: 'Unlawful content',
    });
    // Given the webhooks a moment: no `.delete` for a takedown.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((received) => received.event === 'image-api.image.delete' && received.body.image?.name === image.name)).toEqual([]);
    // Gone: a second takedown finds nothing.
    expect((await app.http.post(`/image-api/review/images/${image.id_encoded}/takedown`).set(admin).send({ reason: 'again' })).status).toBe(404);
  });
});

test('block: a takedown that lists the stored original\'s SHA-256, MD5 and PDQ; the same file uploaded again is refused (403, 107)', async () => {
  const photo = landscapePhoto();
  const image = await upload(photo, 'mountains.jpg');
  await queue(image, 'held', new Date());
  const stored = fs.readFileSync(path.join(app.uploadsDir, path.basename(image.url)));
  const [sha256, md5] = ['sha256', 'md5'].map((algorithm) => crypto.createHash(algorithm).update(stored).digest('hex'));
  const [taken, blocked] = [await metric('taken_down'), await metric('block_added')];

  const res = await app.http.post(`/image-api/review/images/${image.id_encoded}/block`).set(admin).send({ reason: 'Known abuse material' });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ idEncoded: image.id_encoded, takenDown: true, blocked: { sha256, md5, pdq: expect.stringMatching(/^[0-9a-f]{64}$/) } });
  const rows = await app.strapi.db.connection('image_api_blocks').where('image_id', image.id_encoded).orderBy('kind');
  expect(rows.map((row: Record<string, any>) => [row.kind, row.hash, row.source, row.note])).toEqual([
    ['md5', md5, 'takedown', 'Known abuse material'],
    ['pdq', res.body.data.blocked.pdq, 'takedown', 'Known abuse material'],
    ['sha256', sha256, 'takedown', 'Known abuse material'],
  ]);
  expect(await imageRow(image.id_encoded)).toBeUndefined();
  expect(filesOf(image)).toEqual([]);
  expect([await metric('taken_down'), await metric('block_added')]).toEqual([taken + 1, blocked + 1]);
  const [hook] = await receiver.waitFor((hook: ReceivedWebhook) => hook.event === 'image-api.image.takedown' && hook.body.image?.name === image.name);
  expect(hook.body.reason).toBe('Known abuse material');

  const again = await app.upload(app.key, photo, { filename: 'mountains.jpg' });
  expect([again.status, again.body.error?.code]).toEqual([403, 107]);
  const counts = await app.http.get('/image-api/review/blocklist').set(admin);
  expect(counts.status).toBe(200);
  expect(counts.body.data).toEqual({ sha256: expect.any(Number), md5: expect.any(Number), pdq: expect.any(Number) });
  expect(Object.values(counts.body.data as Record<string, number>).every((count) => count >= 1)).toBe(true);
});

describe('hash list imports', () => {
  const post = (kind: string, body: string | Buffer, type = 'text/plain') =>
    app.http.post(`/image-api/review/blocklist/import?kind=${kind}`).set(admin).set('Content-Type', type).send(body);

  test('JSON { text } as the admin page sends it', async () => {
    const hash = crypto.createHash('sha256').update(`json ${Math.random()}`).digest('hex');
    const res = await post('sha256', JSON.stringify({ text: `${hash}\r\n` }), 'application/json');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ added: 1, duplicates: 0, invalid: [], invalidCount: 0 });
    expect(await app.strapi.db.connection('image_api_blocks').where('hash', hash)).toHaveLength(1);
  });

  test('one hex hash a line: added, duplicates, invalid lines; the counts after it', async () => {
    const hashes = Array.from({ length: 3 }, (_, i) => crypto.createHash('md5').update(`import ${i} ${Math.random()}`).digest('hex'));
    const before = (await app.http.get('/image-api/review/blocklist').set(admin)).body.data;
    const res = await post('md5', [hashes[0], hashes[1].toUpperCase(), '', 'not a hash', hashes[0], hashes[2]].join('\n'));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      added: 3,
      duplicates: 1,
      invalid: [4],
      invalidCount: 1,
      counts: { ...before, md5: before.md5 + 3 },
    });
    const rows = await app.strapi.db.connection('image_api_blocks').whereIn('hash', hashes);
    expect(rows.map((row: Record<string, any>) => [row.kind, row.source])).toEqual(Array(3).fill(['md5', 'import']));
  });

  test('a list of 10 MB (about 150,000 SHA-256 hashes) in one request: all of it added, within 60 s', async () => {
    const line = (i: number) => `${crypto.createHash('sha256').update(`big list ${i}`).digest('hex')}\n`;
    const count = Math.floor(10_000_000 / line(0).length);
    const text = Array.from({ length: count }, (_, i) => line(i)).join('');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000_000);
    const started = Date.now();
    const res = await post('sha256', text);
    const ms = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ added: count, duplicates: 0, invalidCount: 0 });
    expect(ms).toBeLessThan(60_000);
    // The measure, for docs/security.md's row.
    process.stdout.write(`review.test: ${count} SHA-256 hashes (${Buffer.byteLength(text)} bytes) imported in ${ms} ms\n`);
  });

  test('a kind not known, a body not text, a body past 10 MB: refused, nothing added', async () => {
    const before = (await app.http.get('/image-api/review/blocklist').set(admin)).body.data;
    const unknown = await post('sha1', 'a'.repeat(40));
    expect([unknown.status, unknown.body.error.message]).toEqual([400, 'kind must be one of sha256, md5, pdq']);
    const json = await post('md5', JSON.stringify({ hashes: [] }), 'application/json');
    expect([json.status, json.body.error.message]).toEqual([400, 'Send the list as text/plain, or JSON { "text": <the list> }']);
    const form = await post('md5', 'text=abc', 'application/x-www-form-urlencoded');
    expect([form.status, form.body.error.message]).toEqual([400, 'Malformed request body: send text/plain or JSON']);
    const line = `${crypto.createHash('sha256').update('x').digest('hex')}\n`;
    const big = await post('sha256', line.repeat(Math.ceil((10_000_000 + 1) / line.length)));
    expect([big.status, big.body.error.message]).toEqual([413, 'Request body too large: at most 10000000 bytes']);
    expect((await app.http.get('/image-api/review/blocklist').set(admin)).body.data).toEqual(before);
  });
});

describe('the permission `images.review`', () => {
  const routes = (id: string): Array<['get' | 'post', string, Record<string, unknown> | string | null]> => [
    ['get', '/image-api/review/queue', null],
    ['get', `/image-api/review/images/${id}/thumbnail`, null],
    ['post', `/image-api/review/images/${id}/approve`, null],
    ['post', `/image-api/review/images/${id}/takedown`, { reason: 'no' }],
    ['post', `/image-api/review/images/${id}/block`, { reason: 'no' }],
    ['get', '/image-api/review/blocklist', null],
    ['post', '/image-api/review/blocklist/import?kind=md5', 'd41d8cd98f00b204e9800998ecf8427e'],
  ];
  const call = (method: 'get' | 'post', url: string, body: Record<string, unknown> | string | null, auth: Record<string, string> | null) => {
    let req = app.http[method](url);
    if (auth) req = req.set(auth);
    if (typeof body === 'string') return req.set('Content-Type', 'text/plain').send(body);
    return body ? req.send(body) : req;
  };

  test('an Editor without it: 403 on every route, nothing done; without a token, 401', async () => {
    const image = await upload();
    await queue(image, 'held', new Date());
    for (const [method, url, body] of routes(image.id_encoded)) {
      expect([url, (await call(method, url, body, editor)).status]).toEqual([url, 403]);
      expect([url, (await call(method, url, body, null)).status]).toEqual([url, 401]);
    }
    const row = await imageRow(image.id_encoded);
    expect(row!.moderation).toBe('held');
    expect(filesOf(image)).toHaveLength(3);
  });

  test('an Editor given it: 200 on every route', async () => {
    const role = await app.strapi.db.query('admin::role').findOne({ where: { code: 'strapi-editor' } });
    await app.strapi.service('admin::permission').createMany([{ action: REVIEW, actionParameters: {}, subject: null, properties: {}, conditions: [], role: role.id }]);
    try {
      // Each action on an image of its own, all uploaded before the block lists one (the fixtures
      // are one picture at several sizes: the block's PDQ would refuse the others).
      const images: Image[] = [];
      for (let i = 0; i < routes('').length; i++) {
        images.push(await upload(await jpeg(600 + i, 400)));
        await queue(images[i], 'held', new Date());
      }
      for (const [i, [method, url, body]] of routes('').entries()) {
        const res = await call(method, url.replace('/images//', `/images/${images[i].id_encoded}/`), body, editor);
        expect([url, res.status]).toEqual([url, 200]);
      }
    } finally {
      const given = await app.strapi.db.query('admin::permission').findMany({ where: { action: REVIEW, role: { id: role.id } }, select: ['id'] });
      await app.strapi.service('admin::permission').deleteByIds(given.map((permission: { id: number }) => permission.id));
    }
  });
});
