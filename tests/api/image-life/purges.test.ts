/**
 * Deleted means gone, the caches in front included (docs/deployment.md, "Caching images"): every
 * answer carrying an image's bytes names the image in cache tags; every road of deletion records a
 * purge in its own transaction and sends it once the files are gone, without its answer waiting; a
 * purger that refuses, is down or never answers gets it later (backoff), and again a round later;
 * none is lost; one is given up only once the caches' max-age has passed. The cache here is a
 * loopback stand-in of a Varnish server (tests/helpers/purge-stand-in.ts); the purgers' own requests
 * are tested against their providers' documented APIs in plugins/image-api/tests/purge, and a real
 * Varnish in front of real instances in tests/cluster.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { deletionRoads } from '../../helpers/deletion-roads';
import { adminToken } from '../../helpers/admin';
import { jpeg } from '../../helpers/fixtures';
import { parseSamples, sample } from '../../helpers/prometheus-text';
import { startPurgeStandIn, type PurgeStandIn } from '../../helpers/purge-stand-in';
import type { UploadedImage } from '../../helpers/image-json';

let varnish: PurgeStandIn;
// Filled in before the app boots (useApp reads it then): the stand-in's port is known by then.
const env: Record<string, string> = { IMAGE_API_TRANSFORM_KEY: '', IMAGE_API_TRANSFORM_SALT: '', IMAGE_API_PURGE_TIMEOUT_MS: '400' };
beforeAll(async () => {
  varnish = await startPurgeStandIn();
  env.IMAGE_API_PURGE_VARNISH = varnish.url;
});
afterAll(async () => {
  await varnish?.close();
});
const app = useApp(env);
const service = (name: string) => app.strapi.plugin('image-api').service(name);
const purgeRows = (): Promise<Array<Record<string, any>>> => app.strapi.db.connection('image_api_purges').select('*');
/** A JSON column as read: text on SQLite and PostgreSQL's json, parsed already on MySQL. */
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

let auth: { Authorization: string };
beforeAll(async () => {
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
});
afterEach(async () => {
  // Each test starts with no purge owed (the later rounds of the test before are of no interest).
  await app.strapi.db.connection('image_api_purges').del();
});

type Image = UploadedImage;

async function upload(filename = 'photo.jpg'): Promise<Image> {
  const res = await app.upload(app.key, await jpeg(640, 480), { filename });
  expect(res.status).toBe(200);
  return res.body.image;
}

/** Waits until `condition` holds (checked every 20 ms), at most `timeoutMs`; throws naming `what` otherwise. */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const roundOf = async (idEncoded: string) => (await purgeRows()).find((row) => json(row.tags)[0] === `img-${idEncoded}`)?.round;

const counters = async () => parseSamples((await service('metrics').exposition()).body);
const purges = async (outcome: string) => sample(await counters(), `image_api_purges_total{purger="varnish",outcome="${outcome}"}`);

describe('cache tags', () => {
  test('every answer carrying the image: original, variants, a kept preset and a negotiated render; from the app and from memory; GET, HEAD and 304', async () => {
    const image = await upload();
    // What the URL already says, nothing of the key (each CDN passes the other's header to clients).
    const tags = { 'surrogate-key': `img-${image.id_encoded} image-api`, 'cache-tag': `img-${image.id_encoded},image-api` };
    const urls = [image.url, image.thumb.url, image.medium.url].map(app.pathOf);
    urls.push(`/img/_/pr:small/plain/${image.url}@png`, `/img/_/rs:fit:120:90/plain/${image.url}`);
    // Twice: the repeat comes from memory (the fast path answers it before Koa).
    for (const url of [...urls, ...urls]) {
      const res = await app.http.get(url).set('Accept', 'image/webp,*/*');
      expect([url, res.status, res.headers['surrogate-key'], res.headers['cache-tag']]).toEqual([url, 200, tags['surrogate-key'], tags['cache-tag']]);
      const head = await app.http.head(url).set('Accept', 'image/webp,*/*');
      expect([url, head.status, head.headers['surrogate-key'], head.headers['cache-tag']]).toEqual([url, 200, tags['surrogate-key'], tags['cache-tag']]);
      const again = await app.http.get(url).set('Accept', 'image/webp,*/*').set('If-None-Match', res.headers.etag);
      expect([url, again.status, again.headers['surrogate-key'], again.headers['cache-tag']]).toEqual([url, 304, tags['surrogate-key'], tags['cache-tag']]);
    }
    // What is not the image's bytes names nothing: its viewer page, and a 404 once it is deleted.
    const viewer = await app.http.get(app.pathOf(image.url_viewer));
    expect([viewer.status, viewer.headers['surrogate-key'], viewer.headers['cache-tag']]).toEqual([200, undefined, undefined]);
    expect((await app.http.delete(app.pathOf(image.delete_url)).set('Accept', 'application/json')).status).toBe(200);
    for (const url of urls) {
      const gone = await app.http.get(url);
      expect([url, gone.status, gone.headers['cache-control'], gone.headers['surrogate-key'], gone.headers['cache-tag']]).toEqual([url, 404, 'no-store', undefined, undefined]);
    }
  });
});

test('a render that outlived its lookup of the image answers only if the image is still there: deleted meanwhile, 404 no-store, nothing kept', async () => {
  const image = await upload();
  const sources = service('image-sources');
  const byName = sources.byName;
  // The render's own lookup finds the image; the look again after it (a render that took longer
  // than the lookup lives) finds it deleted.
  sources.byName = async () => null;
  let res;
  try {
    res = await app.http.get(`/img/_/pr:small/plain/${image.url}@png`);
  } finally {
    sources.byName = byName;
  }
  expect([res.status, res.headers['cache-control'], res.headers['surrogate-key']]).toEqual([404, 'no-store', undefined]);
  await service('renditions').settled();
  expect(await app.strapi.db.connection('image_api_renditions').where('image_name', image.name)).toEqual([]);
  // Still there: served.
  expect((await app.http.get(`/img/_/pr:small/plain/${image.url}@png`)).status).toBe(200);
});

describe('every road of deletion purges the image from the caches', () => {
  const roads = deletionRoads(app, () => auth);

  test.each(roads)('%s: one purge of its tag, sent once its files are gone; again once the lookups have run out; a third round waits', async (_road, remove) => {
    const image = await upload();
    const files = [image.url, image.thumb.url, image.medium.url].map((url) => path.join(app.uploadsDir, path.basename(url)));
    const before = varnish.received.length;
    // Which files are still there when the purge arrives.
    const filesAtPurge: boolean[][] = [];
    varnish.onRequest = () => filesAtPurge.push(files.map((file) => fs.existsSync(file)));
    try {
      await remove(image);
      const [purge] = await varnish.waitForTag(`img-${image.id_encoded}`, 1, 5000);
      expect([purge.method, purge.url, purge.headers['xkey-purge']]).toEqual(['PURGE', '/', `img-${image.id_encoded}`]);
    } finally {
      varnish.onRequest = null;
    }
    expect(filesAtPurge[0]).toEqual([false, false, false]);
    // Round 2, once every instance's lookup of the image has run out (1 s), by this instance.
    const [first, second] = await varnish.waitForTag(`img-${image.id_encoded}`, 2, 8000);
    expect(second.at - first.at).toBeGreaterThanOrEqual(1100);
    // Not the third round's 10 s (the bound leaves room for a loaded machine's timers).
    expect(second.at - first.at).toBeLessThan(6000);
    // Then the row waits for its third round, about 10 s later.
    await until('the third round', async () => (await roundOf(image.id_encoded)) === 3, 6000);
    const [row] = await purgeRows();
    expect([row.round, row.attempts, json(row.owed), json(row.tags), json(row.urls), row.last_error]).toEqual([3, 0, ['varnish'], [`img-${image.id_encoded}`], [], null]);
    expect(new Date(row.due_at).getTime() - Date.now()).toBeGreaterThan(8000);
  });
});

test('the third round: sent once due, by any instance\'s poll, after which nothing is owed', async () => {
  const image = await upload();
  expect((await app.http.delete(app.pathOf(image.delete_url)).set('Accept', 'application/json')).status).toBe(200);
  await until('the third round', async () => (await roundOf(image.id_encoded)) === 3, 10_000);
  // This instance would send it from its own timer in 10 s, and its poll leaves it to that timer.
  // As if it had stopped: its timers are dropped; then, its time come, a poll sends it.
  const purgesService = service('purges');
  await purgesService.stop();
  await app.strapi.db.connection('image_api_purges').update({ due_at: new Date(Date.now() - 1000) });
  expect(await purgesService.run()).toBe(1);
  purgesService.start();
  await varnish.waitForTag(`img-${image.id_encoded}`, 3, 3000);
  await until('no purge owed', async () => (await purgeRows()).length === 0);
  expect(sample(await counters(), 'image_api_purges_owed')).toBe(0);
});

test('purges that come within 100 ms of each other go in one request; a burst of deletions loses none', async () => {
  const purgesService = service('purges');
  const before = varnish.received.length;
  const ids: number[] = [];
  for (const name of ['c1', 'c2', 'c3', 'c4']) ids.push(await purgesService.record(app.strapi.db.connection, [{ idEncoded: name, fileUrls: [] }]));
  for (const id of ids) purgesService.sendSoon(id);
  await varnish.waitForTag('img-c4');
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(varnish.received.slice(before).map((request) => request.headers['xkey-purge'])).toEqual(['img-c1 img-c2 img-c3 img-c4']);
  // Their second rounds fall due together too.
  await varnish.waitForTag('img-c4', 2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(varnish.received.slice(before + 1).map((request) => request.headers['xkey-purge'])).toEqual(['img-c1 img-c2 img-c3 img-c4']);

  const images = await Promise.all(Array.from({ length: 6 }, (_, i) => upload(`burst-${i}.jpg`)));
  const from = varnish.received.length;
  const answers = await Promise.all(images.map((image) => app.http.post('/api/1/delete').set('X-API-Key', app.key).field('id', image.id_encoded)));
  expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
  for (const image of images) await varnish.waitForTag(`img-${image.id_encoded}`);
  const sent = varnish.received.slice(from);
  expect(sent.flatMap((request) => String(request.headers['xkey-purge']).split(' ')).sort()).toEqual(images.map((image) => `img-${image.id_encoded}`).sort());
  console.log(`6 concurrent deletions purged in ${sent.length} request(s)`);
});

test("the instance's poll leaves a purge to the timer of its slot (the two taking one slot's rows at once split it in two requests)", async () => {
  const purgesService = service('purges');
  const before = varnish.received.length;
  const ids: number[] = [];
  for (const name of ['d1', 'd2']) ids.push(await purgesService.record(app.strapi.db.connection, [{ idEncoded: name, fileUrls: [] }]));
  for (const id of ids) purgesService.sendSoon(id);
  // Due for any poll (its recorder's hold over), and still in this instance's slot.
  await app.strapi.db.connection('image_api_purges').whereIn('id', ids).update({ due_at: new Date(Date.now() - 1000) });
  expect(await purgesService.run()).toBe(0);
  await varnish.waitForTag('img-d2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(varnish.received.slice(before).map((request) => request.headers['xkey-purge'])).toEqual(['img-d1 img-d2']);
});

test('a purger that refuses three times gets the purge at the fourth attempt, 1, 2 and 4 s apart', async () => {
  const [failedBefore, sentBefore] = [await purges('failed'), await purges('sent')];
  const image = await upload();
  varnish.answerNext(503, 503, 503);
  expect((await app.http.delete(app.pathOf(image.delete_url)).set('Accept', 'application/json')).status).toBe(200);
  const attempts = (await varnish.waitForTag(`img-${image.id_encoded}`, 4, 15_000)).slice(0, 4);
  const gaps = attempts.slice(1).map((attempt, i) => attempt.at - attempts[i].at);
  expect(gaps[0]).toBeGreaterThanOrEqual(900);
  expect(gaps[1]).toBeGreaterThanOrEqual(1900);
  expect(gaps[2]).toBeGreaterThanOrEqual(3900);
  await until('the fourth attempt counted', async () => (await purges('sent')) - sentBefore >= 1);
  expect((await purges('failed')) - failedBefore).toBe(3);
});

test('a purger that is down loses no purge: brought back, it gets every one, with the attempts counted', async () => {
  const failedBefore = await purges('failed');
  const [a, b] = [await upload('a.jpg'), await upload('b.jpg')];
  await varnish.close();
  try {
    expect((await app.http.delete(app.pathOf(a.delete_url)).set('Accept', 'application/json')).status).toBe(200);
    expect((await app.http.post('/api/1/delete').set('X-API-Key', app.key).field('id', b.id_encoded)).status).toBe(200);
    // The first attempts fail (connection refused); the purges wait in the database.
    await until('both first attempts failed', async () => (await purges('failed')) - failedBefore >= 2, 5000);
    // The failure is counted before its row is written (CI once read a row between the two).
    await until('both failures written', async () => (await purgeRows()).filter((row) => row.last_error).length >= 2, 5000);
    const owed = await purgeRows();
    expect(owed.map((row) => [json(row.tags)[0], row.round, json(row.owed)]).sort()).toEqual(
      [[`img-${a.id_encoded}`, 1, ['varnish']], [`img-${b.id_encoded}`, 1, ['varnish']]].sort()
    );
    for (const row of owed) expect(row.last_error).toMatch(/^image-api: varnish purge of .* failed: /);
    expect(sample(await counters(), 'image_api_purges_owed')).toBe(2);
  } finally {
    await varnish.listen();
  }
  await varnish.waitForTag(`img-${a.id_encoded}`, 1, 15_000);
  await varnish.waitForTag(`img-${b.id_encoded}`, 1, 15_000);
});

test('a purger that never answers: each attempt ends at the timeout; uploads and deletions go on meanwhile', async () => {
  const image = await upload();
  varnish.answerNext('never', 'never', 'never');
  expect((await app.http.delete(app.pathOf(image.delete_url)).set('Accept', 'application/json')).status).toBe(200);
  await varnish.waitForTag(`img-${image.id_encoded}`, 1, 3000);
  // Its purge is held by the stand-in; the service goes on.
  const other = await upload('other.jpg');
  expect((await app.http.delete(app.pathOf(other.delete_url)).set('Accept', 'application/json')).status).toBe(200);
  // Every held attempt ended at the timeout (400 ms); a later one went through, for both.
  await until('both purges acknowledged', async () => (await roundOf(image.id_encoded)) >= 2 && (await roundOf(other.id_encoded)) >= 2, 15_000);
  expect(varnish.purgedTags().filter((tag) => tag === `img-${image.id_encoded}`).length).toBeGreaterThanOrEqual(2);
});

test('a purge owed to a purger this instance lacks is left to the others (due again in 10 s), and does not hold back the ones it can send', async () => {
  const purgesService = service('purges');
  const elsewhere = await purgesService.record(app.strapi.db.connection, [{ idEncoded: 'elsewhere', fileUrls: [] }]);
  await app.strapi.db.connection('image_api_purges').where('id', elsewhere).update({ owed: JSON.stringify(['cloudflare']), purgers: JSON.stringify(['cloudflare']), due_at: new Date(Date.now() - 2000) });
  const mine = await purgesService.record(app.strapi.db.connection, [{ idEncoded: 'mine', fileUrls: [] }]);
  await app.strapi.db.connection('image_api_purges').where('id', mine).update({ due_at: new Date(Date.now() - 1000) });
  await varnish.waitForTag('img-mine', 1, 3000);
  const [left] = await app.strapi.db.connection('image_api_purges').where('id', elsewhere);
  expect([left.round, left.attempts, json(left.owed)]).toEqual([1, 0, ['cloudflare']]);
  expect(new Date(left.due_at).getTime() - Date.now()).toBeGreaterThan(8000);
  expect(varnish.purgedTags()).not.toContain('img-elsewhere');
});

test("a purge not acknowledged once the caches' max-age has passed is given up, logged and counted", async () => {
  const abandonedBefore = await purges('abandoned');
  const image = await upload();
  await varnish.close();
  try {
    expect((await app.http.delete(app.pathOf(image.delete_url)).set('Accept', 'application/json')).status).toBe(200);
    await until('the first attempt', async () => (await purgeRows())[0]?.attempts === 1);
    // Recorded 30 days and a minute ago (cacheMaxAgeSeconds: 30 days).
    await app.strapi.db.connection('image_api_purges').update({ created_at: new Date(Date.now() - 2_592_060_000) });
    await service('purges').run();
    expect(await purgeRows()).toEqual([]);
    expect((await purges('abandoned')) - abandonedBefore).toBe(1);
  } finally {
    await varnish.listen();
  }
});
