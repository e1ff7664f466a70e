/**
 * Client configurations (docs/clients.md): downloaded from a key's panel (admin API) or printed by
 * the CLI, then replayed as each client sends them: ShareX's custom uploader, PicGo's web-uploader
 * (PicList uses the same plugin), and the curl script run by the real curl.
 */
import { execFile } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { promisify } from 'util';
import type { AddressInfo } from 'net';
import sharp from 'sharp';
import { startApp, APP_DIR, PUBLIC_URL, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';
import { binaryParser } from '../../helpers/image-json';

const run = promisify(execFile);
let app: TestApp;
let token: string;
let documentId: string;
let key: string;
let screenshot: Buffer;
let port: number;

beforeAll(async () => {
  app = await startApp();
  token = await adminToken(app);
  const created = await app.strapi.plugin('image-api').service('api-keys').create({ name: 'Bob laptop (ShareX)', description: 'screenshots' });
  key = created.key;
  documentId = created.entry.documentId;
  screenshot = await png(800, 450);
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  port = (app.strapi.server.httpServer.address() as AddressInfo).port;
});
afterAll(async () => {
  await app?.stop();
});

const download = (kind: string) => app.http.get(`/image-api/api-keys/${documentId}/client-config/${kind}`).set('Authorization', `Bearer ${token}`);

/** ShareX's `{json:a.b.c}` syntax, read as ShareX reads it. */
const sharexValue = (template: string, answer: any) =>
  template.replace(/\{json:([^}]+)\}/g, (_, jsonPath: string) => String(jsonPath.split('.').reduce((value, part) => value?.[part], answer)));

/** The bytes at an absolute URL the API handed out. */
const fetchBytes = async (url: string) => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body as Buffer;

test('the key panel offers each configuration as a download, to admins who may reveal the key', async () => {
  for (const [kind, filename, type] of [
    ['sharex', 'bob-laptop-sharex.sxcu', 'application/json'],
    ['picgo', 'bob-laptop-sharex.picgo.json', 'application/json'],
    ['curl', 'bob-laptop-sharex.curl.sh', 'text/plain'],
  ]) {
    const res = await download(kind);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${filename}"`);
    expect(res.headers['content-type']).toBe(`${type}; charset=utf-8`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain(key);
    expect(res.text).toContain(`${PUBLIC_URL}/api/1/upload`);
  }
  expect((await download('flameshot')).status).toBe(404);
  expect((await app.http.get(`/image-api/api-keys/${documentId}/client-config/sharex`)).status).toBe(401);
});

test('ShareX: its request (method, URL, header, multipart file field, arguments), then the URL, thumbnail and deletion link it reads', async () => {
  const sxcu = JSON.parse((await download('sharex')).text);
  expect(sxcu).toMatchObject({ DestinationType: 'ImageUploader', Body: 'MultipartFormData', RequestMethod: 'POST' });
  let request = app.http.post(app.pathOf(sxcu.RequestURL));
  for (const [name, value] of Object.entries<string>(sxcu.Headers)) request = request.set(name, value);
  for (const [name, value] of Object.entries<string>(sxcu.Arguments)) request = request.field(name, value);
  const res = await request.attach(sxcu.FileFormName, screenshot, 'ShareX_2026-11-24_09-15-02.png');
  expect(res.status).toBe(200);
  const url = sharexValue(sxcu.URL, res.body);
  const thumbnail = sharexValue(sxcu.ThumbnailURL, res.body);
  const deletion = sharexValue(sxcu.DeletionURL, res.body);
  expect((await fetchBytes(url)).equals(screenshot)).toBe(true);
  expect(await sharp(await fetchBytes(thumbnail)).metadata()).toMatchObject({ width: 160, height: 160 });
  // ShareX opens the deletion URL in the browser: the confirmation page, then its button.
  const page = await app.http.get(app.pathOf(deletion));
  expect(page.status).toBe(200);
  expect(page.text).toContain('<form');
  expect((await app.http.post(app.pathOf(deletion))).status).toBe(200);
  expect((await app.http.get(app.pathOf(url))).status).toBe(404);
  // A refusal: the message ShareX shows.
  const refused = await app.http.post(app.pathOf(sxcu.RequestURL)).set('X-API-Key', 'img_wrong').field('format', 'json').attach(sxcu.FileFormName, screenshot, 'a.png');
  expect(sharexValue(sxcu.ErrorMessage, refused.body)).toBe('Invalid API key');
});

test('PicGo / PicList web-uploader: its multipart request with the custom header and body, then the jsonPath it reads', async () => {
  const settings = JSON.parse((await download('picgo')).text).picBed['web-uploader'];
  let request = app.http.post(app.pathOf(settings.url)).set('User-Agent', 'PicGo');
  for (const [name, value] of Object.entries<string>(JSON.parse(settings.customHeader))) request = request.set(name, value);
  for (const [name, value] of Object.entries<string>(JSON.parse(settings.customBody))) request = request.field(name, value);
  const res = await request.attach(settings.paramName, screenshot, 'image.png');
  expect(res.status).toBe(200);
  const url = settings.jsonPath.split('.').reduce((value: any, part: string) => value?.[part], res.body);
  expect((await fetchBytes(url)).equals(screenshot)).toBe(true);
});

test('curl: the script, run by the real curl, prints the direct URL', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-curl-'));
  const script = path.join(dir, 'upload.sh');
  fs.writeFileSync(script, (await download('curl')).text);
  const file = path.join(dir, 'screen shot.png');
  fs.writeFileSync(file, screenshot);
  // The public host is not resolvable here: curl connects it to this server (nothing else changes).
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'curl'), `#!/bin/sh\nexec /usr/bin/curl --connect-to img.test:1337:127.0.0.1:${port} "$@"\n`, { mode: 0o755 });
  const { stdout } = await run('sh', [script, file], { env: { ...process.env, PATH: `${dir}/bin:${process.env.PATH}` } });
  const url = stdout.trim();
  expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/uploads/screen-shot-[A-Za-z0-9]+\\.png$`));
  expect((await fetchBytes(url)).equals(screenshot)).toBe(true);
  // A refused upload: exit 1, the API's message on stderr, nothing on stdout that looks like a URL.
  const notes = path.join(dir, 'notes.txt');
  fs.writeFileSync(notes, 'not an image');
  await expect(run('sh', [script, notes], { env: { ...process.env, PATH: `${dir}/bin:${process.env.PATH}` } })).rejects.toMatchObject({
    code: 1,
    stdout: '',
    stderr: expect.stringContaining("upload failed: Can't get target upload source info: the file is not an image"),
  });
  // Only the API's message: no "curl: (22) The requested URL returned error: 400" line before it.
  const refused = await run('sh', [script, notes], { env: { ...process.env, PATH: `${dir}/bin:${process.env.PATH}` } }).catch((error: { stderr: string }) => error);
  expect(refused.stderr).not.toContain('curl:');
  expect(refused.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(/^upload failed: Can't get target upload source info/)]);
  // No answer at all (nothing listens there): curl's own line is then the only word, and the exit is 1.
  const offline = script.replace(/\.sh$/, '-offline.sh');
  fs.writeFileSync(offline, fs.readFileSync(script, 'utf8').replace(/'https?:\/\/[^']+'/, "'http://127.0.0.1:9/api/1/upload'"));
  await expect(run('sh', [offline, file])).rejects.toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^curl: \(7\) /) });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the CLI prints the same configuration', async () => {
  const { stdout } = await run('node', [path.join(APP_DIR, 'scripts/apikey.js'), 'keys', 'client-config', 'sharex', 'Bob laptop (ShareX)'], { cwd: APP_DIR, env: process.env, timeout: 60_000 });
  expect(JSON.parse(stdout)).toEqual(JSON.parse((await download('sharex')).text));
  await expect(run('node', [path.join(APP_DIR, 'scripts/apikey.js'), 'keys', 'client-config', 'flameshot', 'x'], { cwd: APP_DIR, env: process.env })).rejects.toThrow(/sharex, picgo or curl/);
});
