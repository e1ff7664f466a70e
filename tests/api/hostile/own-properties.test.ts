/**
 * Names a client chooses (a preset, a format, an option, a file of the docs page, an action, a
 * parameter) are looked up among the server's own names only: `__proto__`, `constructor`, `toString`
 * and the rest of Object.prototype's names are unknown names like any other, answered 4xx in the
 * API's error shape, never a 500 with a stack (issue 34, item 9).
 */
import type { Response } from 'supertest';
import { useApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';

// Unsigned, so every option is read (signed or not, the options are read the same way).
const app = useApp({ IMAGE_API_TRANSFORM_KEY: '', IMAGE_API_TRANSFORM_SALT: '' });

/** Names every plain object answers to through its prototype. */
const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable', 'toLocaleString'];

let url: string;
beforeAll(async () => {
  const res = await app.upload(app.key, await png(64, 48));
  expect(res.status).toBe(200);
  url = res.body.image.url;
});

/** The API's error shape, and no trace of the server's code in the body. */
function expectRefused(res: Response, status: number, code: number, message?: string | RegExp): void {
  expect([res.status, res.headers['content-type']]).toEqual([status, 'application/json; charset=utf-8']);
  expect(Object.keys(res.body)).toEqual(['status_code', 'error', 'status_txt']);
  expect(res.body.status_code).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (message !== undefined) expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  expect(res.text).not.toMatch(/\n\s+at |\.[jt]s:\d+|TypeError|stack/);
}

describe('transformations', () => {
  test.each(INHERITED)('preset %s: 400/180 unknown preset', async (name) => {
    const res = await app.http.get(`/img/_/pr:${encodeURIComponent(name)}/plain/${url}`);
    expectRefused(res, 400, 180, `Invalid transformation: unknown preset "${name}"`);
    // Its long name, and among known presets.
    expectRefused(await app.http.get(`/img/_/preset:small:${name}/plain/${url}`), 400, 180, `Invalid transformation: unknown preset "${name}"`);
  });

  test.each(INHERITED)('format %s (option, @extension, .extension): 400/180 unsupported format', async (name) => {
    const expected = `Invalid transformation: unsupported format "${name}"`;
    expectRefused(await app.http.get(`/img/_/f:${name}/plain/${url}`), 400, 180, expected);
    expectRefused(await app.http.get(`/img/_/w:10/plain/${url}@${name}`), 400, 180, `Invalid transformation: unsupported format "${name.toLowerCase()}"`);
    const base64 = Buffer.from(url).toString('base64url');
    expectRefused(await app.http.get(`/img/_/w:10/${base64}.${name}`), 400, 180, `Invalid transformation: unsupported format "${name.toLowerCase()}"`);
  });

  test.each(INHERITED)('option %s: 400/180 unknown option', async (name) => {
    expectRefused(await app.http.get(`/img/_/${name}:1/plain/${url}`), 400, 180, `Invalid transformation: unknown option "${name}"`);
  });

  test('other option values named like Object.prototype: 400/180', async () => {
    for (const options of ['rt:constructor', 'g:constructor', 'g:__proto__', 'el:constructor', 'rs:__proto__:10:10']) {
      expectRefused(await app.http.get(`/img/_/${options}/plain/${url}`), 400, 180);
    }
  });
});

describe('the API', () => {
  test.each(INHERITED)('/api/1/docs/%s: 404 in the error shape', async (name) => {
    expectRefused(await app.http.get(`/api/1/docs/${encodeURIComponent(name)}`), 404, 404, 'Not found');
  });

  test('an unknown file of the docs page answers the same', async () => {
    expectRefused(await app.http.get('/api/1/docs/nothing.js'), 404, 404, 'Not found');
  });

  test.each(INHERITED)('action %s (in the path or as action=): 400/120', async (name) => {
    expectRefused(await app.http.get(`/api/1/${encodeURIComponent(name)}`).query({ key: app.key }), 400, 120, 'Invalid API action');
    expectRefused(await app.http.post(`/api/1/${encodeURIComponent(name)}`).query({ key: app.key }), 400, 120, 'Invalid API action');
    expectRefused(await app.upload(app.key, await png(8, 8), { fields: { action: name } }), 400, 120, 'Invalid API action');
  });

  test.each(INHERITED)('format=%s: 400/140 in JSON, as an unknown format', async (name) => {
    expectRefused(await app.http.get('/api/1/upload').query({ key: app.key, format: name }), 400, 140, 'Invalid format: use one of json, txt, redirect');
  });

  test.each(INHERITED)('album_id, expiration, width, id: %s is an invalid value', async (name) => {
    const picture = await png(8, 8);
    expectRefused(await app.upload(app.key, picture, { fields: { album_id: name } }), 400, 160, 'Invalid album: album_id must be the id of a folder that GET /api/1/albums lists for this key');
    expectRefused(await app.upload(app.key, picture, { fields: { expiration: name } }), 400, 150);
    expectRefused(await app.upload(app.key, picture, { fields: { width: name } }), 400, 170, 'Invalid width: width is the number of pixels to resize the stored image to (a whole number from 1; its height follows)');
    expectRefused(await app.http.post('/api/1/delete').send({ key: app.key, id: name }), 404, 404, 'Image not found');
  });
});

describe('parameter names', () => {
  const base64 = async () => (await png(8, 8)).toString('base64');

  test.each(INHERITED)('%s as a query, urlencoded, JSON or multipart name is ignored like any unknown parameter', async (name) => {
    const image = await base64();
    const answers: Response[] = [
      await app.http.get(`/api/1/upload?${encodeURIComponent(name)}=1&${encodeURIComponent(name)}[key]=x&key=${app.key}`),
      await app.http
        .post('/api/1/upload')
        .type('form')
        .send(`${encodeURIComponent(name)}=1&${encodeURIComponent(name)}=2&${encodeURIComponent(name)}[source]=x&key=${app.key}&source=${encodeURIComponent(image)}`),
      await app.http
        .post('/api/1/upload')
        .type('json')
        .send(`{"${name}":{"key":"x","source":"x"},"key":"${app.key}","source":"${image}"}`),
      await app.http
        .post('/api/1/upload')
        .field(name, '1')
        .field(name, '2')
        .field(name, '3')
        .field('key', app.key)
        .attach('source', await png(8, 8), 'a.png'),
      await app.http.post(`/1/upload?${encodeURIComponent(name)}=1&key=${app.key}`).field(name, 'x').field('image', image),
    ];
    // The first has no source: the ordinary refusal; the others upload.
    expectRefused(answers[0], 400, 130, 'Empty upload source: send the image in the `source` field (a file, its base64, or an http(s) URL)');
    for (const res of answers.slice(1)) expect([res.status, res.body.status_code ?? res.body.status]).toEqual([200, 200]);
  });

  test('a multipart part whose name is __proto__ or constructor carries no image and breaks nothing', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const res = await app.http.post('/api/1/upload').field('key', app.key).attach(name, await png(8, 8), 'a.png');
      expectRefused(res, 400, 130, 'Empty upload source: send the image in the `source` field (a file, its base64, or an http(s) URL)');
    }
  });
});

describe('pages', () => {
  test.each(INHERITED)('/image/%s and its delete link: 404', async (name) => {
    const id = encodeURIComponent(name);
    for (const res of [await app.http.get(`/image/${id}`), await app.http.get(`/image/${id}/delete/${id}`), await app.http.post(`/image/${id}/delete/${id}`)]) {
      expect(res.status).toBe(404);
      expect(res.text).not.toMatch(/\n\s+at |\.[jt]s:\d+|TypeError/);
    }
  });
});
