/**
 * The delete link of every upload (docs/api.md, "Deleting an image"): GET shows a confirmation page
 * and never deletes; POST or DELETE deletes everything; a wrong secret, an unknown or a deleted image
 * answers 404 and deletes nothing. The secret is stored only as a hash.
 */
import crypto from 'crypto';
import { useApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';
import { expectUploadJson } from '../../helpers/image-json';
import { NOTHING, tracesOf, whole } from '../../helpers/leftovers';

let picture: Buffer;

const app = useApp();
beforeAll(async () => {
  picture = await png(300, 200);
});

async function upload(title = 'A sunset') {
  const res = await app.upload(app.key, picture, { fields: { title }, filename: 'sunset.png' });
  return expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
}

const linkOf = (image: any) => app.pathOf(image.delete_url);
const secretOf = (image: any) => linkOf(image).split('/').pop()!;
/** A links' traces of a whole upload of an unowned key: key, album, media field (twice: from both ends), folder. */
const LINKS = 5;
const NOT_FOUND_JSON = { status_code: 404, error: { message: 'Image not found', code: 404 }, status_txt: 'Not Found' };

test('every upload answer carries a delete link of its own; only a hash of its secret is stored', async () => {
  const [a, b] = [await upload(), await upload()];
  for (const image of [a, b]) expect(secretOf(image)).toMatch(/^[A-Za-z0-9]{40}$/);
  expect(secretOf(a)).not.toBe(secretOf(b));
  const row = await app.strapi.db.connection('image_api_images').where('id_encoded', a.id_encoded).first();
  expect(row.delete_hash).toBe(crypto.createHash('sha256').update(secretOf(a)).digest('hex'));
  expect(JSON.stringify(row)).not.toContain(secretOf(a));
  // Not in what the record gives out either.
  const record = await app.strapi.documents('plugin::image-api.image').findFirst({ filters: { id_encoded: a.id_encoded } });
  expect(JSON.stringify(record)).not.toContain(secretOf(a));
});

test('GET shows the image and a Delete button, and deletes nothing', async () => {
  const image = await upload('Sunset <over> the sea');
  const res = await app.http.get(linkOf(image)).set('Accept', 'text/html');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.text).toContain('Sunset &lt;over&gt; the sea');
  expect(res.text).toContain(`<img src="${image.thumb.url}"`);
  expect(res.text).toMatch(/<form method="post"><button type="submit">Delete<\/button><\/form>/);
  expect(res.text).toContain('<meta name="referrer" content="no-referrer">');
  // Fetched again, by an unfurler say: still nothing deleted.
  await app.http.get(linkOf(image));
  expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', LINKS));
  expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(200);
});

test('a form POST deletes the original, both variants, the Media Library file and the record, and says so in HTML', async () => {
  const image = await upload();
  const res = await app.http.post(linkOf(image)).set('Accept', 'text/html,application/xhtml+xml').type('form').send('');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.text).toContain('<h1>Image deleted</h1>');
  expect(await tracesOf(app, image.name)).toEqual(NOTHING);
  // Everything that pointed at it answers 404 now.
  expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(404);
  for (const url of [image.url, image.thumb.url, image.medium.url]) expect((await app.http.get(app.pathOf(url))).status).toBe(404);
  expect((await app.http.get(linkOf(image))).status).toBe(404);
  const again = await app.http.post(linkOf(image)).set('Accept', 'application/json');
  expect(again.status).toBe(404);
  expect(again.body).toEqual(NOT_FOUND_JSON);
});

test('DELETE, or a POST asking for JSON, answers the API\'s JSON', async () => {
  for (const send of [(path: string) => app.http.delete(path), (path: string) => app.http.post(path).set('Accept', 'application/json')]) {
    const image = await upload();
    const res = await send(linkOf(image));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ status_code: 200, success: { message: 'image deleted', code: 200 }, status_txt: 'OK' });
    expect(await tracesOf(app, image.name)).toEqual(NOTHING);
  }
});

test('a wrong secret, a malformed one, another image\'s, an unknown image: 404, and nothing deleted', async () => {
  const [image, other] = [await upload(), await upload()];
  const base = app.pathOf(image.url_viewer);
  const wrong = [
    `${base}/delete/${'A'.repeat(40)}`,
    `${base}/delete/${secretOf(image).slice(0, 39)}`,
    `${base}/delete/${secretOf(image)}x`,
    `${base}/delete/${secretOf(other)}`,
    `${base}/delete/${secretOf(image).slice(0, 10)}`,
    `/image/NoSuchImage/delete/${secretOf(image)}`,
  ];
  for (const path of wrong) {
    const page = await app.http.get(path);
    expect([path, page.status, page.headers['content-type']]).toEqual([path, 404, 'text/html; charset=utf-8']);
    expect(page.text).toContain('Image not found');
    expect((await app.http.post(path).set('Accept', 'text/html')).status).toBe(404);
    const json = await app.http.delete(path);
    expect([path, json.status, json.body]).toEqual([path, 404, NOT_FOUND_JSON]);
  }
  expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', LINKS));
  expect(await tracesOf(app, other.name)).toEqual(whole(other.name, 'png', LINKS));
});

test('a revoked key does not stop its images\' delete links', async () => {
  const revoked = await app.createKey('revoked with images');
  const res = await app.upload(revoked, picture);
  const image = res.body.image;
  await app.strapi.plugin('image-api').service('api-keys').revoke('revoked with images');
  expect((await app.upload(revoked, picture)).status).toBe(403);
  expect((await app.http.delete(linkOf(image))).status).toBe(200);
  expect(await tracesOf(app, image.name)).toEqual(NOTHING);
});

test('when the database fails the deletion, nothing is deleted', async () => {
  const image = await upload();
  const unsubscribe = app.strapi.db.lifecycles.subscribe({
    models: ['plugin::upload.file'],
    beforeDeleteMany() {
      throw new Error('connection lost');
    },
  });
  try {
    const failed = await app.http.delete(linkOf(image));
    // The API's error shape (never Strapi's own, never a stack trace).
    expect([failed.status, failed.body]).toEqual([500, { status_code: 500, error: { message: 'Internal error', code: 500 }, status_txt: 'Internal Server Error' }]);
  } finally {
    unsubscribe();
  }
  expect(await tracesOf(app, image.name)).toEqual(whole(image.name, 'png', LINKS));
  expect((await app.http.delete(linkOf(image))).status).toBe(200);
  expect(await tracesOf(app, image.name)).toEqual(NOTHING);
});

test('when the storage will not delete the files, the records go and the journal keeps the files for the sweep', async () => {
  const image = await upload();
  const provider = app.strapi.plugin('upload').provider;
  const remove = provider.delete;
  provider.delete = async () => {
    throw new Error('storage unavailable');
  };
  try {
    expect((await app.http.delete(linkOf(image))).status).toBe(200);
  } finally {
    provider.delete = remove;
  }
  expect(await tracesOf(app, image.name)).toEqual({ ...NOTHING, files: whole(image.name, 'png', 0).files, journalRows: 1 });
  expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(404);
  app.strapi.config.set('plugin::image-api.sweepAfterMs', 0);
  expect(await app.strapi.plugin('image-api').service('debris-sweep').run()).toEqual({ uploads: 1, tempFolders: 0, idempotencyKeys: 0 });
  expect(await tracesOf(app, image.name)).toEqual(NOTHING);
});
