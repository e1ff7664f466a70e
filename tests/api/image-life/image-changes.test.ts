/**
 * Every way an image changes reaches what a client sees next, at once, however hot the image was
 * (storage/image-changes.ts): the direct URLs, a kept transformation and the viewer page. Each test
 * first serves the image twice (the repeat from memory, the fast path), so a cache that missed the
 * change would answer the old image: the image lookups live 1 s (delivery/image-sources.ts), and
 * every assertion here is made well within that.
 *
 * The roads of deletion are tests/helpers/deletion-roads.ts's. Covered elsewhere: the focal point
 * moved in the Media Library (transformations.test.ts), the expiry reached
 * (image-life/expiration.test.ts), and a key's changes (tests/api/keys/api-keys.test.ts).
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { deletionRoads } from '../../helpers/deletion-roads';
import { adminToken } from '../../helpers/admin';
import { jpeg } from '../../helpers/fixtures';
import type { UploadedImage } from '../../helpers/image-json';

// No transformation key: the presets are kept, unsigned (docs/api.md, "Transformations").
const app = useApp({ IMAGE_API_TRANSFORM_KEY: '', IMAGE_API_TRANSFORM_SALT: '' });
const IMAGE_UID = 'plugin::image-api.image';
const IMMUTABLE = 'public, max-age=2592000, immutable';
const settled = () => app.strapi.plugin('image-api').service('renditions').settled();

let auth: { Authorization: string };
beforeAll(async () => {
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
});

type Image = UploadedImage;

/** What a client asks for: every direct URL, a kept preset, the viewer page. */
const urlsOf = (image: Image) => ({
  direct: [image.url, image.thumb.url, image.medium.url].map(app.pathOf),
  preset: `/img/_/pr:small/plain/${image.url}@png`,
  viewer: app.pathOf(image.url_viewer),
});

async function upload(filename: string): Promise<Image> {
  const res = await app.upload(app.key, await jpeg(640, 480), { filename });
  expect(res.status).toBe(200);
  return res.body.image;
}

/** Every URL answered, twice (the repeat from memory); the preset's result kept. */
async function servedHot(image: Image): Promise<void> {
  const { direct, preset, viewer } = urlsOf(image);
  for (const url of [...direct, preset, ...direct, preset]) {
    const res = await app.http.get(url);
    expect([url, res.status, res.headers['cache-control']]).toEqual([url, 200, IMMUTABLE]);
  }
  await settled();
  expect((await app.http.get(viewer)).status).toBe(200);
}

/** What a client gets for every URL of the image: [url, status, Cache-Control]. */
async function answers(image: Image): Promise<Array<[string, number, string | undefined]>> {
  const { direct, preset, viewer } = urlsOf(image);
  const found: Array<[string, number, string | undefined]> = [];
  for (const url of [...direct, preset, viewer]) {
    const res = await app.http.get(url);
    found.push([url, res.status, url === viewer ? undefined : res.headers['cache-control']]);
  }
  return found;
}

const gone = (image: Image) => {
  const { direct, preset, viewer } = urlsOf(image);
  return [...[...direct, preset].map((url): [string, number, string | undefined] => [url, 404, 'no-store']), [viewer, 404, undefined] as [string, number, string | undefined]];
};
const served = (image: Image) => {
  const { direct, preset, viewer } = urlsOf(image);
  return [...[...direct, preset].map((url): [string, number, string | undefined] => [url, 200, IMMUTABLE]), [viewer, 200, undefined] as [string, number, string | undefined]];
};

const recordOf = (image: Image) => app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: image.id_encoded } });
const contentManager = (documentId: string) => `/content-manager/collection-types/${IMAGE_UID}/${documentId}`;

describe('deleted, by each road, right after it was served from memory: every URL answers 404 at once', () => {
  const roads = deletionRoads(app, () => auth);

  test.each(roads)('%s', async (road, remove) => {
    const image = await upload(`${road.replace(/ /g, '-')}.jpg`);
    await servedHot(image);
    await remove(image);
    expect(await answers(image)).toEqual(gone(image));
    expect(await recordOf(image)).toBeNull();
    for (const url of urlsOf(image).direct) expect(fs.existsSync(path.join(app.uploadsDir, path.basename(url)))).toBe(false);
  });
});

test('stored: a client that asked for the image while its upload was on its way gets it right after the answer', async () => {
  const journal = app.strapi.plugin('image-api').service('journal');
  const open = journal.open;
  const early: Array<[string, number]> = [];
  // The upload journals its name before it writes a file: a client asks for that name then.
  journal.open = async (name: string, files: unknown) => {
    for (const url of [`/uploads/${name}.jpg`, `/img/_/pr:small/plain/local:///${name}.jpg@png`]) early.push([url, (await app.http.get(url)).status]);
    return open.call(journal, name, files);
  };
  let image: Image;
  try {
    image = await upload('ahead.jpg');
  } finally {
    journal.open = open;
  }
  expect(early).toEqual([
    [`/uploads/${image.name}.jpg`, 404],
    [`/img/_/pr:small/plain/local:///${image.name}.jpg@png`, 404],
  ]);
  expect(await answers(image)).toEqual(served(image));
  const local = await app.http.get(`/img/_/pr:small/plain/local:///${image.name}.jpg@png`);
  expect([local.status, local.headers['cache-control']]).toEqual([200, IMMUTABLE]);
});

describe('edited in the Content Manager', () => {
  test('an expiry moved into the past: 404 at once, before the sweep; moved out again: served at once', async () => {
    const image = await upload('cm-expiry.jpg');
    await servedHot(image);
    const record = await recordOf(image);
    const past = await app.http.put(contentManager(record.documentId)).set(auth).send({ expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(200);
    expect(await answers(image)).toEqual(gone(image));
    // Nothing is removed until the sweep: the files are still there.
    for (const url of urlsOf(image).direct) expect(fs.existsSync(path.join(app.uploadsDir, path.basename(url)))).toBe(true);
    const future = await app.http.put(contentManager(record.documentId)).set(auth).send({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.status).toBe(200);
    // Served again, cached until the new expiry at most (an hour: max-age is the seconds left).
    const lastingAnHour = (found: Array<[string, number, string | undefined]>) =>
      found.map(([url, status, cacheControl]): [string, number, string | undefined] => [url, status, cacheControl?.replace(/^public, max-age=(359\d|3600), immutable$/, IMMUTABLE)]);
    expect(lastingAnHour(await answers(image))).toEqual(served(image));
  });

  test('a new title: the viewer page shows it at once; every URL still serves the image', async () => {
    const image = await upload('cm-title.jpg');
    await servedHot(image);
    const record = await recordOf(image);
    const saved = await app.http.put(contentManager(record.documentId)).set(auth).send({ title: 'Renamed by an editor' });
    expect(saved.status).toBe(200);
    const viewer = await app.http.get(urlsOf(image).viewer);
    expect(viewer.status).toBe(200);
    expect(viewer.text).toContain('<h1>Renamed by an editor</h1>');
    expect(viewer.text).not.toContain('<h1>cm-title.jpg</h1>');
    expect(await answers(image)).toEqual(served(image));
  });
});

test("edited in the Media Library (name, alternative text, caption): every URL still serves the image, the same bytes", async () => {
  const image = await upload('library-info.jpg');
  await servedHot(image);
  const before = await app.http.get(urlsOf(image).direct[0]);
  const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
  const saved = await app.http
    .put(`/upload/files/${file.id}`)
    .set(auth)
    .send({ fileInfo: { name: 'renamed.jpg', alternativeText: 'a new alternative text', caption: 'a new caption' } });
  expect(saved.status).toBe(200);
  expect(await answers(image)).toEqual(served(image));
  const after = await app.http.get(urlsOf(image).direct[0]);
  expect([after.headers.etag, Buffer.compare(after.body, before.body)]).toEqual([before.headers.etag, 0]);
});
