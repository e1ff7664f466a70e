/**
 * Viewers' reports (docs/moderation.md, "Reports"; docs/security.md's threat model): anyone may
 * report a live image from its viewer page, without a key, as a form or JSON; a kept report is a
 * row (its address only as a keyed hash), counts on its image, puts it in the review queue and
 * reaches webhooks; every bound holds (the body's size, the reason and text, the address's rate, one
 * report per address and image, the image's own bound), and reports go with their image on every
 * road of deletion. And the viewer page's side: an NSFW image's first view carries none of its URLs;
 * a held image has no page. Clients are told apart by their loopback source address (127.0.0.N).
 */
import type { AddressInfo } from 'net';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { deletionRoads } from '../../helpers/deletion-roads';
import { jpeg } from '../../helpers/fixtures';
import { parseSamples, sample } from '../../helpers/prometheus-text';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../helpers/webhook-receiver';
import { request, type Answer } from '../../../tools/support/http/http-client';
import type { UploadedImage } from '../../helpers/image-json';

const IMAGE_UID = 'plugin::image-api.image';
const REASONS = ['sexual', 'violence', 'hate', 'illegal', 'spam', 'copyright', 'other'];

const app = useApp({ IMAGE_API_REPORTS_PER_ADDRESS: '3/hour' });
let base: string;
let receiver: WebhookReceiver;
let auth: { Authorization: string };
beforeAll(async () => {
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.strapi.server.httpServer.address() as AddressInfo).port}`;
  receiver = await startWebhookReceiver();
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
  const res = await app.http.post('/admin/webhooks').set(auth).send({ name: 'reports', url: receiver.url, headers: {}, events: ['image-api.image.report'] });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await receiver?.close();
});

type Image = UploadedImage;

async function upload(fields: Record<string, string> = {}): Promise<Image> {
  const res = await app.upload(app.key, await jpeg(640, 480), { fields, filename: 'harbour.jpg' });
  expect(res.status).toBe(200);
  return res.body.image;
}

/** Each test's clients get addresses of their own: the per-address bound is 3 an hour. */
let nextAddress = 10;
const newAddress = () => `127.0.0.${nextAddress++}`;

/** A report as the page's form posts it (urlencoded), or as JSON. */
function report(id: string, fields: Record<string, unknown>, { from, json = false, headers = {} }: { from: string; json?: boolean; headers?: Record<string, string> }): Promise<Answer> {
  const body = json ? JSON.stringify(fields) : new URLSearchParams(fields as Record<string, string>).toString();
  return request(`${base}/image/${id}/report`, {
    method: 'POST',
    from,
    headers: { 'Content-Type': json ? 'application/json' : 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body), ...headers },
    body,
  });
}

const reportRows = (id: string): Promise<Array<Record<string, any>>> => app.strapi.db.connection('image_api_reports').where('image_id_encoded', id).orderBy('id');
const imageRow = async (id: string) => (await app.strapi.db.connection('image_api_images').where('id_encoded', id).first()) as Record<string, any>;
const reportsCounted = async () => sample(parseSamples((await app.strapi.plugin('image-api').service('metrics').exposition()).body), 'image_api_moderation_total{action="reported"}') ?? 0;
const reportHooks = (image: Image) => (hook: ReceivedWebhook) => hook.event === 'image-api.image.report' && hook.body.image?.name === image.name;

describe('a kept report', () => {
  test('a form\'s: 303 back to the viewer, which thanks; the row (reason, text, a keyed hash of the address), the image counted and queued, the webhook, the metric', async () => {
    const image = await upload({ title: 'Harbour' });
    const from = newAddress();
    const before = await reportsCounted();
    expect((await imageRow(image.id_encoded)).review_since).toBeNull();
    const started = Date.now();

    const res = await report(image.id_encoded, { reason: 'spam', text: '  Selling pills, see the caption  ' }, { from });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`${image.url_viewer}?reported=1`);
    expect(res.headers['cache-control']).toBe('no-store');
    const thanked = await app.http.get(`/image/${image.id_encoded}?reported=1`);
    expect(thanked.status).toBe(200);
    expect(thanked.text).toContain('<p class="note" role="status">Thank you: your report was sent to the moderators.</p>');

    const rows = await reportRows(image.id_encoded);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect([row.reason, row.text]).toEqual(['spam', 'Selling pills, see the caption']);
    expect(row.address_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.address_hash).toBe(app.strapi.plugin('image-api').service('reports').addressHash(from));
    expect(row.address_hash).not.toBe(app.strapi.plugin('image-api').service('reports').addressHash('127.0.0.1'));
    expect(JSON.stringify(row)).not.toContain(from);
    const created = new Date(row.created_at).getTime();
    expect(created).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
    expect(created).toBeLessThanOrEqual(Date.now());

    const record = await imageRow(image.id_encoded);
    expect(Number(record.report_count)).toBe(1);
    expect(new Date(record.review_since).getTime()).toBe(created);
    expect(await reportsCounted()).toBe(before + 1);

    const [hook] = await receiver.waitFor(reportHooks(image));
    expect(hook.body).toEqual({
      event: 'image-api.image.report',
      createdAt: expect.any(String),
      image: expect.objectContaining({ name: image.name, id_encoded: image.id_encoded, url: image.url, url_viewer: image.url_viewer, title: 'Harbour', delete_url: null }),
      key_name: 'test key 1',
      report: { reason: 'spam', text: 'Selling pills, see the caption', created_at: expect.any(String) },
    });
    expect(Math.abs(new Date(hook.body.report.created_at).getTime() - created)).toBeLessThan(1000);
    expect(hook.raw).not.toContain(from);
    expect(hook.raw).not.toContain(row.address_hash);
  });

  test('JSON\'s: 200 in the API\'s success shape; no text is null; a second report keeps review_since and counts 2', async () => {
    const image = await upload();
    const first = await report(image.id_encoded, { reason: 'violence' }, { from: newAddress(), json: true });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.json).toEqual({ status_code: 200, success: { message: 'report received', code: 200 }, status_txt: 'OK' });
    const since = (await imageRow(image.id_encoded)).review_since;
    expect(since).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await report(image.id_encoded, { reason: 'other', text: '' }, { from: newAddress(), json: true });
    expect(second.status).toBe(200);
    expect((await reportRows(image.id_encoded)).map((row) => [row.reason, row.text])).toEqual([['violence', null], ['other', null]]);
    const record = await imageRow(image.id_encoded);
    expect(Number(record.report_count)).toBe(2);
    expect(new Date(record.review_since).getTime()).toBe(new Date(since).getTime());
  });

  test('every reason of the list is taken, and a text of 1,000 characters of three UTF-8 bytes each (9 KB as a form sends it)', async () => {
    const image = await upload();
    for (const reason of REASONS) expect((await report(image.id_encoded, { reason }, { from: newAddress() })).status).toBe(303);
    const text = 'あ'.repeat(1000);
    const long = await report(image.id_encoded, { reason: 'other', text }, { from: newAddress() });
    expect(long.status).toBe(303);
    const rows = await reportRows(image.id_encoded);
    expect(rows.map((row) => row.reason)).toEqual([...REASONS, 'other']);
    expect(rows.at(-1)!.text).toBe(text);
  });

  test('the path in any case, with a trailing slash, as the router matches it: the route reads its own body (Strapi\'s parser never does)', async () => {
    const image = await upload();
    const res = await request(`${base}/IMAGE/${image.id_encoded}/Report/`, {
      method: 'POST',
      from: newAddress(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'reason=copyright',
    });
    expect(res.status).toBe(303);
    expect((await reportRows(image.id_encoded)).map((row) => row.reason)).toEqual(['copyright']);
  });
});

describe('bounds', () => {
  test('a body past 10 KB: 413 before it is read (declared), and at the first byte past it (chunked); nothing kept', async () => {
    const image = await upload();
    const big = `reason=spam&text=${'a'.repeat(11 * 1024)}`;
    const declared = await report(image.id_encoded, { reason: 'spam', text: 'a'.repeat(11 * 1024) }, { from: newAddress(), json: true });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({ status_code: 413, error: { message: 'Request body too large: at most 10240 bytes', code: 413 }, status_txt: 'Payload Too Large' });
    const chunked = await request(`${base}/image/${image.id_encoded}/report`, {
      method: 'POST',
      from: newAddress(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: [Buffer.from(big.slice(0, 4096)), Buffer.from(big.slice(4096, 8192)), Buffer.from(big.slice(8192))],
    });
    expect(chunked.status).toBe(413);
    expect(chunked.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(chunked.text).toContain('Request body too large: at most 10240 bytes');
    // Megabytes declared: refused from the header, the connection not held for them.
    const huge = await request(`${base}/image/${image.id_encoded}/report`, {
      method: 'POST',
      from: newAddress(),
      headers: { 'Content-Type': 'application/json', 'Content-Length': 50_000_000, Accept: 'application/json' },
      body: Buffer.alloc(64 * 1024, 0x20),
      timeoutMs: 15000,
    });
    expect(huge.status).toBe(413);
    expect(huge.ms).toBeLessThan(12000);
    expect(await reportRows(image.id_encoded)).toEqual([]);
    expect(Number((await imageRow(image.id_encoded)).report_count)).toBe(0);
  });

  test.each([
    ['no reason', {}],
    ['a reason not in the list', { reason: 'boring' }],
    ['a reason in another case', { reason: 'SPAM' }],
    ['two reasons', { reason: ['spam', 'hate'] }],
  ])('%s: 400, nothing kept', async (_case, fields) => {
    const image = await upload();
    const res = await report(image.id_encoded, fields, { from: newAddress(), json: true });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status_code: 400, error: { message: `Invalid report: reason must be one of ${REASONS.join(', ')}`, code: 400 }, status_txt: 'Bad Request' });
    expect(await reportRows(image.id_encoded)).toEqual([]);
  });

  test('a text over 1,000 characters: 400 (JSON, and a page for the form); nothing kept', async () => {
    const image = await upload();
    const json = await report(image.id_encoded, { reason: 'spam', text: 'x'.repeat(1001) }, { from: newAddress(), json: true });
    expect(json.status).toBe(400);
    expect(json.json.error).toEqual({ message: 'Invalid report: text is at most 1000 characters', code: 400 });
    const form = await report(image.id_encoded, { reason: 'spam', text: 'x'.repeat(1001) }, { from: newAddress() });
    expect(form.status).toBe(400);
    expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(form.text).toContain('<h1>Report not sent</h1><p>Invalid report: text is at most 1000 characters.</p>');
    expect(form.text).toContain(`<a href="/image/${image.id_encoded}">Back to the image</a>`);
    expect(await reportRows(image.id_encoded)).toEqual([]);
  });

  test('another type of body (multipart, text): 400', async () => {
    const image = await upload();
    const res = await request(`${base}/image/${image.id_encoded}/report`, { method: 'POST', from: newAddress(), headers: { 'Content-Type': 'text/plain', Accept: 'application/json' }, body: 'reason=spam' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe('Malformed request body: send a form (application/x-www-form-urlencoded) or JSON');
  });

  test('an address past its bound (3 an hour here): 429 with Retry-After, for JSON and for the form; other addresses still report', async () => {
    const images = await Promise.all([upload(), upload(), upload(), upload()]);
    const from = newAddress();
    for (const image of images.slice(0, 3)) expect((await report(image.id_encoded, { reason: 'spam' }, { from, json: true })).status).toBe(200);
    const refused = await report(images[3].id_encoded, { reason: 'spam' }, { from, json: true });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ status_code: 429, error: { message: 'Rate limit exceeded: 3 reports per hour', code: 429 }, status_txt: 'Too Many Requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
    const form = await report(images[3].id_encoded, { reason: 'spam' }, { from });
    expect(form.status).toBe(429);
    expect(form.headers['retry-after']).toMatch(/^\d+$/);
    expect(form.text).toContain('Rate limit exceeded: 3 reports per hour');
    expect(await reportRows(images[3].id_encoded)).toEqual([]);
    expect((await report(images[3].id_encoded, { reason: 'spam' }, { from: newAddress() })).status).toBe(303);
    expect(await reportRows(images[3].id_encoded)).toHaveLength(1);
  });

  test('a second report from one address on one image is answered alike and not kept twice; not counted, no second webhook', async () => {
    const image = await upload();
    const from = newAddress();
    const before = await reportsCounted();
    expect((await report(image.id_encoded, { reason: 'hate' }, { from })).status).toBe(303);
    const again = await report(image.id_encoded, { reason: 'illegal', text: 'really' }, { from });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(`${image.url_viewer}?reported=1`);
    expect((await report(image.id_encoded, { reason: 'spam' }, { from, json: true })).json.success.message).toBe('report received');
    expect((await reportRows(image.id_encoded)).map((row) => row.reason)).toEqual(['hate']);
    expect(Number((await imageRow(image.id_encoded)).report_count)).toBe(1);
    expect(await reportsCounted()).toBe(before + 1);
    await receiver.waitFor(reportHooks(image));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter(reportHooks(image))).toHaveLength(1);
  });

  test('an image past moderation.reportsPerImage (50): answered alike, not kept, not counted', async () => {
    const image = await upload();
    await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ report_count: 50 });
    const res = await report(image.id_encoded, { reason: 'spam' }, { from: newAddress() });
    expect(res.status).toBe(303);
    expect(await reportRows(image.id_encoded)).toEqual([]);
    const record = await imageRow(image.id_encoded);
    expect([Number(record.report_count), record.review_since]).toEqual([50, null]);
    // One under it: kept, and that is the last.
    await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ report_count: 49 });
    expect((await report(image.id_encoded, { reason: 'spam' }, { from: newAddress() })).status).toBe(303);
    expect((await report(image.id_encoded, { reason: 'hate' }, { from: newAddress() })).status).toBe(303);
    expect((await reportRows(image.id_encoded)).map((row) => row.reason)).toEqual(['spam']);
    expect(Number((await imageRow(image.id_encoded)).report_count)).toBe(50);
  });

  test('concurrent reports of one image from many addresses: each kept once, counted exactly', async () => {
    const image = await upload();
    const answers = await Promise.all(Array.from({ length: 8 }, () => report(image.id_encoded, { reason: 'spam' }, { from: newAddress() })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(303));
    expect(await reportRows(image.id_encoded)).toHaveLength(8);
    expect(Number((await imageRow(image.id_encoded)).report_count)).toBe(8);
  });
});

describe('images that cannot be reported', () => {
  test.each(['Nope12345', 'x'.repeat(40)])('an unknown id (%s): 404, as JSON and as a page', async (id) => {
    const json = await report(id, { reason: 'spam' }, { from: newAddress(), json: true });
    expect(json.status).toBe(404);
    expect(json.json).toEqual({ status_code: 404, error: { message: 'Image not found', code: 404 }, status_txt: 'Not Found' });
    const form = await report(id, { reason: 'spam' }, { from: newAddress() });
    expect(form.status).toBe(404);
    expect(form.text).toContain('Image not found');
  });

  test('an expired image, and one held for review: 404, nothing kept', async () => {
    const [expired, held] = [await upload(), await upload()];
    await app.strapi.db.connection('image_api_images').where('id_encoded', expired.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
    await app.strapi.db.connection('image_api_images').where('id_encoded', held.id_encoded).update({ moderation: 'held' });
    for (const image of [expired, held]) {
      expect((await report(image.id_encoded, { reason: 'spam' }, { from: newAddress(), json: true })).status).toBe(404);
      expect(await reportRows(image.id_encoded)).toEqual([]);
    }
  });
});

describe('reports go with their image', () => {
  const roads = deletionRoads(app, () => auth);
  test.each(roads)('%s', async (_road, remove) => {
    const [image, other] = [await upload(), await upload()];
    for (const target of [image, other]) expect((await report(target.id_encoded, { reason: 'copyright' }, { from: newAddress() })).status).toBe(303);
    expect(await reportRows(image.id_encoded)).toHaveLength(1);
    await remove(image);
    expect(await reportRows(image.id_encoded)).toEqual([]);
    expect(await reportRows(other.id_encoded)).toHaveLength(1);
  });
});

describe('the viewer page', () => {
  test('has the report form: every reason, an optional text of at most 1,000 characters, posted to the report route', async () => {
    const image = await upload();
    const page = await app.http.get(`/image/${image.id_encoded}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form class="report" method="post" action="/image/${image.id_encoded}/report">`);
    expect(page.text).toContain('<select name="reason" required><option value="">Choose…</option>');
    for (const reason of REASONS) expect(page.text).toContain(`<option value="${reason}">`);
    expect(page.text).toContain('<textarea name="text" maxlength="1000"');
    expect(page.text).not.toContain('<script');
    expect(page.text).not.toContain('Thank you');
  });

  test('an NSFW image: its first view carries none of its URLs (no <img>, no og:image or twitter:image), only "Show"; ?show=1 shows it; one view counted', async () => {
    const image = await upload({ nsfw: '1', title: 'Beach' });
    const first = await app.http.get(`/image/${image.id_encoded}`);
    expect(first.status).toBe(200);
    for (const url of [image.url, image.thumb.url, image.medium.url]) expect(first.text).not.toContain(app.pathOf(url));
    expect(first.text).not.toContain(image.name);
    expect(first.text).not.toContain('<img');
    expect(first.text).not.toMatch(/og:image|twitter:image/);
    expect(first.text).toContain('<meta name="twitter:card" content="summary">');
    expect(first.text).toContain('This image is marked as sensitive (NSFW).');
    expect(first.text).toContain(`<a class="show" href="/image/${image.id_encoded}?show=1" rel="nofollow">Show</a>`);
    expect(first.text).toContain(`action="/image/${image.id_encoded}/report"`);

    const shown = await app.http.get(`/image/${image.id_encoded}?show=1`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`<img src="${image.url}"`);
    expect(shown.text).toContain(`<meta property="og:image" content="${image.medium.url}">`);
    expect(shown.text).not.toContain('marked as sensitive');
    expect(Number((await imageRow(image.id_encoded)).views)).toBe(1);

    // Flagged by moderation rather than by its uploader: the same.
    const flagged = await upload();
    await app.strapi.db.connection('image_api_images').where('id_encoded', flagged.id_encoded).update({ nsfw: true, moderation: 'flagged' });
    const page = await app.http.get(`/image/${flagged.id_encoded}`);
    expect(page.text).not.toContain(app.pathOf(flagged.url));
    expect(page.text).toContain('marked as sensitive');
  });

  test('an image not marked NSFW is shown at once', async () => {
    const image = await upload();
    const page = await app.http.get(`/image/${image.id_encoded}`);
    expect(page.text).toContain(`<img src="${image.url}"`);
    expect(page.text).not.toContain('marked as sensitive');
  });

  test('a held image has no page: 404, ?show=1 too, and no view counted', async () => {
    const image = await upload();
    await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ moderation: 'held' });
    for (const path of [`/image/${image.id_encoded}`, `/image/${image.id_encoded}?show=1`]) {
      const res = await app.http.get(path);
      expect(res.status).toBe(404);
      expect(res.text).toContain('Image not found');
    }
    expect(Number((await imageRow(image.id_encoded)).views)).toBe(0);
    // Approved, it is back.
    await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ moderation: 'approved' });
    expect((await app.http.get(`/image/${image.id_encoded}`)).status).toBe(200);
  });
});

test('the records are as the content type says: a record of the image exists for every report kept', async () => {
  const orphans = await app.strapi.db.connection('image_api_reports').whereNotIn('image_id_encoded', app.strapi.db.connection('image_api_images').select('id_encoded'));
  expect(orphans).toEqual([]);
  expect(await app.strapi.db.query(IMAGE_UID).count({ where: { report_count: { $gt: 0 } } })).toBeGreaterThan(0);
});
