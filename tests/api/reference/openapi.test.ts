/**
 * The OpenAPI document (GET /api/1/openapi.json) and its docs page (GET /api/1/docs): a valid
 * OpenAPI 3.1 document that lists every route, and the error table's every status and code. That
 * every answer of the API tests matches it is checked for all of them (tests/helpers/openapi-check.ts).
 */
import { execFileSync } from 'child_process';
import path from 'path';
import { startApp, PUBLIC_URL, type TestApp } from '../../helpers/app';

let app: TestApp;
let document: any;

beforeAll(async () => {
  app = await startApp();
  const res = await app.http.get('/api/1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  document = res.body;
});
afterAll(async () => {
  await app?.stop();
});

test('is a valid OpenAPI 3.1 document', async () => {
  const script = path.join(__dirname, '..', '..', 'helpers', 'validate-openapi.mjs');
  const result = JSON.parse(execFileSync(process.execPath, [script], { input: JSON.stringify(document) }).toString());
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
  expect(result.version).toBe('3.1');
  expect(document.servers).toEqual([{ url: PUBLIC_URL }]);
});

test('lists every route: both dialects, delete, albums, the pages (the viewer, its report, the delete link), itself, health', () => {
  expect(Object.keys(document.paths).sort()).toEqual(
    ['/1/upload', '/_health', '/api/1/albums', '/api/1/delete', '/api/1/docs', '/api/1/openapi.json', '/api/1/upload', '/api/{version}/{action}', '/image/{id}', '/image/{id}/delete/{secret}', '/image/{id}/report', '/img/{signature}/{processing}', '/uploads/{file}'].sort()
  );
  expect(Object.keys(document.paths['/api/1/upload'])).toEqual(['get', 'post']);
  expect(Object.keys(document.paths['/1/upload'])).toEqual(['get', 'post']);
  const parameters = document.paths['/api/1/upload'].post.parameters.map((p: any) => `${p.in}:${p.name}`);
  expect(parameters).toEqual(expect.arrayContaining(['header:X-API-Key', 'query:key', 'query:source', 'query:format', 'query:title', 'query:name', 'query:expiration', 'query:album_id', 'query:width', 'header:Idempotency-Key']));
  expect(Object.keys(document.paths['/api/1/upload'].post.requestBody.content)).toEqual(['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json']);
});

test("every status and code of the error table, with an example of each, on the upload operation", () => {
  const responses = document.paths['/api/1/upload'].post.responses;
  const codes = (status: number) => responses[String(status)].content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
  expect(codes(400)).toEqual(expect.arrayContaining([110, 120, 130, 140, 150, 160, 170, 310, 311, 320, 321, 400]));
  expect(codes(401)).toEqual([100]);
  expect(codes(403)).toEqual([100, 105, 107]);
  expect(codes(422)).toEqual([106]);
  expect(codes(409)).toEqual([101]);
  expect(codes(413)).toEqual([313, 315]);
  expect(codes(415)).toEqual([314]);
  for (const status of [405, 408, 429, 431, 500, 503, 507]) expect(codes(status)).toEqual([status]);
  const examples = responses['400'].content['application/json'].examples;
  expect(Object.values(examples).map((e: any) => e.value.error.message)).toContain('Invalid API version');
  expect(responses['200'].content['application/json'].schema.oneOf).toEqual([
    { $ref: '#/components/schemas/UploadSuccess' },
    { $ref: '#/components/schemas/ImgbbUploadSuccess' },
  ]);
});

test('the transformation route answers its own codes (180, 181) and the image types; the upload never answers them', () => {
  const responses = document.paths['/img/{signature}/{processing}'].get.responses;
  const codes = (status: number) => responses[String(status)].content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
  expect(codes(400)).toEqual([180]);
  expect(codes(403)).toEqual([181]);
  expect(codes(404)).toEqual([404]);
  expect(Object.keys(responses['200'].content)).toEqual(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif']);
  expect(Object.keys(responses).sort()).toEqual(['200', '206', '304', '400', '403', '404', '416', '429', '500', '503']);
  const upload = document.paths['/api/1/upload'].post.responses;
  expect(upload['400'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum).not.toContain(180);
});

test('the docs page renders it with assets served by the app itself', async () => {
  const page = await app.http.get('/api/1/docs');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(sources).toEqual(['/api/1/docs/swagger-ui.css', '/api/1/docs/swagger-ui-bundle.js', '/api/1/docs/init.js']);
  for (const [source, type] of [[sources[0], 'text/css'], [sources[1], 'application/javascript'], [sources[2], 'application/javascript']]) {
    const asset = await app.http.get(source);
    expect([source, asset.status, asset.headers['content-type']]).toEqual([source, 200, `${type}; charset=utf-8`]);
  }
  expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  expect((await app.http.get('/api/1/docs/../../package.json')).status).not.toBe(200);
  expect((await app.http.get('/api/1/docs/index.html')).status).toBe(404);
});

test('CORS: browser clients may read it', async () => {
  const res = await app.http.get('/api/1/openapi.json').set('Origin', 'https://editor.example');
  expect(res.headers['access-control-allow-origin']).toBe('*');
});
