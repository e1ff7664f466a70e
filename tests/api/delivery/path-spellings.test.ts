/**
 * A path names a file one way (docs/security.md, "Serving"; docs/api.md, "Direct URLs"): every
 * other spelling of a path under `/uploads` (doubled slashes, dot segments, percent-encoded dots,
 * slashes and letters, a back slash, double encoding, upper case, a trailing slash) answers 404 with
 * `Cache-Control: no-store`, for a live image as for an expired or a deleted one, so none serves an
 * expired image's file that its plain spelling refuses. A kept transformation result's stored file
 * is no URL either: its image's expiry is checked on its transformation URL. Requests go out byte
 * for byte (tests/helpers/raw-path.ts): an HTTP library would resolve the dot segments first.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';
import { listening, requestPath, type RawAnswer } from '../../helpers/raw-path';

const app = useApp();
let port: number;

interface Uploaded {
  idEncoded: string;
  name: string;
  /** The original's and the thumbnail's stored file names. */
  files: string[];
  url: string;
}

const upload = async (filename: string): Promise<Uploaded> => {
  const res = await app.upload(app.key, await jpeg(400, 300), { filename });
  expect(res.status).toBe(200);
  const { image } = res.body;
  return { idEncoded: image.id_encoded, name: image.name, files: [image.url, image.thumb.url].map((url: string) => path.basename(app.pathOf(url))), url: image.url };
};

/** Every other spelling of `/uploads/<file>` this test sends. */
const otherSpellings = (file: string): string[] => {
  const encodedFirst = `%${file.charCodeAt(0).toString(16).toUpperCase()}${file.slice(1)}`;
  return [
    `/uploads//${file}`,
    `//uploads/${file}`,
    `/uploads/./${file}`,
    `/./uploads/${file}`,
    `/uploads/x/../${file}`,
    `/img/../uploads/${file}`,
    `/uploads/%2e/${file}`,
    `/uploads/%2E/${file}`,
    `/uploads/%2e%2e/uploads/${file}`,
    `/uploads%2F${file}`,
    `/uploads%2f${file}`,
    `/uploads%5C${file}`,
    `/uploads\\${file}`,
    `/uploads/%252e/${file}`,
    `/uploads%252F${file}`,
    `/%75ploads/${file}`,
    `/uploads/${encodedFirst}`,
    `/uploads/${file.replace('.', '%2E')}`,
    `/UPLOADS/${file}`,
    `/Uploads/${file}`,
    `/uploads/${file.toUpperCase()}`,
    `/uploads/${file}/`,
    `/uploads/${file}/.`,
    `/uploads/${file}%00`,
    `/uploads/${file}%2F`,
  ];
};

let live: Uploaded;
let expired: Uploaded;
let deleted: Uploaded;
/** The expired image's kept transformation results' stored names. */
let expiredKept: string[];
let liveKept: string[];

const keptFiles = async (imageName: string): Promise<string[]> =>
  (await app.strapi.db.connection('image_api_renditions').where('image_name', imageName)).map((row: { hash: string; ext: string }) => `${row.hash}${row.ext}`);

beforeAll(async () => {
  port = await listening(app.strapi.server.httpServer);
  [live, expired, deleted] = [await upload('live.jpg'), await upload('expired.jpg'), await upload('deleted.jpg')];

  // Kept results (a preset is kept unsigned), made while their images are live.
  for (const image of [live, expired]) {
    for (const format of ['webp', 'png']) {
      const rendered = await app.http.get(`/img/_/pr:small/plain/${image.url}@${format}`);
      expect(rendered.status).toBe(200);
    }
  }
  await app.strapi.plugin('image-api').service('renditions').settled();
  [liveKept, expiredKept] = [await keptFiles(live.name), await keptFiles(expired.name)];
  expect([liveKept.length, expiredKept.length]).toEqual([2, 2]);

  // Every file served once while live, so the process holds them in memory (the fast path's case).
  for (const image of [live, expired, deleted]) for (const file of image.files) expect((await requestPath(port, 'GET', `/uploads/${file}`)).status).toBe(200);

  await app.strapi.db.connection('image_api_images').where('id_encoded', expired.idEncoded).update({ expires_at: new Date(Date.now() - 1000) });
  app.strapi.plugin('image-api').service('image-sources').forget([expired.name]);
  expect((await app.http.post('/api/1/delete').set('X-API-Key', app.key).send({ id: deleted.idEncoded })).status).toBe(200);
});

const gone = (answer: RawAnswer) => [answer.status, answer.headers['cache-control']];

describe.each(['GET', 'HEAD'])('%s', (method) => {
  test('the plain spelling: a live image 200; an expired or deleted one 404 with no-store', async () => {
    for (const file of live.files) expect([file, (await requestPath(port, method, `/uploads/${file}`)).status]).toEqual([file, 200]);
    for (const file of [...expired.files, ...deleted.files]) expect([file, ...gone(await requestPath(port, method, `/uploads/${file}`))]).toEqual([file, 404, 'no-store']);
  });

  test('every other spelling answers 404 with no-store, for a live, an expired and a deleted image alike', async () => {
    const served: string[] = [];
    for (const image of [live, expired, deleted]) {
      for (const file of image.files) {
        for (const spelling of otherSpellings(file)) {
          const answer = await requestPath(port, method, spelling);
          if (answer.status !== 404 || answer.headers['cache-control'] !== 'no-store') served.push(`${spelling} -> ${answer.status} ${answer.headers['cache-control']}`);
        }
      }
    }
    expect(served).toEqual([]);
    // The expired image's files are still on disk: the 404s are the rule's, not a missing file's.
    for (const file of expired.files) expect(fs.existsSync(path.join(app.uploadsDir, file))).toBe(true);
  });

  test('a query string is not part of the name: the live image is served, the others stay 404', async () => {
    for (const query of ['?', '?v=2', '?x=%2e%2e%2F', '?/../x']) {
      const [file] = live.files;
      expect([query, (await requestPath(port, method, `/uploads/${file}${query}`)).status]).toEqual([query, 200]);
      for (const other of [expired.files[0], deleted.files[0]]) expect([query, ...gone(await requestPath(port, method, `/uploads/${other}${query}`))]).toEqual([query, 404, 'no-store']);
      expect([query, ...gone(await requestPath(port, method, `/uploads//${file}${query}`))]).toEqual([query, 404, 'no-store']);
    }
  });

  test("a kept transformation result's stored file is no URL: 404 with no-store, its image expired or not, in every spelling", async () => {
    for (const file of [...expiredKept, ...liveKept]) {
      expect(fs.existsSync(path.join(app.uploadsDir, file))).toBe(true);
      expect([file, ...gone(await requestPath(port, method, `/uploads/${file}`))]).toEqual([file, 404, 'no-store']);
      for (const spelling of otherSpellings(file)) expect([spelling, ...gone(await requestPath(port, method, spelling))]).toEqual([spelling, 404, 'no-store']);
    }
    // Through its transformation URL: the live image's is served, the expired image's is gone.
    const [liveResult, expiredResult] = [live, expired].map((image) => `/img/_/pr:small/plain/${image.url}@webp`);
    expect((await requestPath(port, method, liveResult)).status).toBe(200);
    expect(gone(await requestPath(port, method, expiredResult))).toEqual([404, 'no-store']);
  });
});
