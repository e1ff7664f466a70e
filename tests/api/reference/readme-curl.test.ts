/**
 * The README's curl examples ("Try it with curl"), run as written by bash and the real curl against
 * a running app, with a photo over the size where base64 on the command line used to fail
 * ("Argument list too long", about 96 KB). Only the host differs; the URL-source example, which
 * names a host on the internet, is left out (tests send traffic to loopback only), and the album
 * example gets the key's own folder for its id.
 */
import { execFile } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { promisify } from 'util';
import type { AddressInfo } from 'net';
import { startApp, APP_DIR, type TestApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';

const run = promisify(execFile);
let app: TestApp;
let dir: string;
let key: string;
let base: string;

beforeAll(async () => {
  app = await startApp();
  key = await app.createKey('curl demo');
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.strapi.server.httpServer.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-readme-'));
  const photo = await jpeg(1600, 1200, 95);
  expect(photo.length).toBeGreaterThan(100_000);
  fs.writeFileSync(path.join(dir, 'cat.jpg'), photo);
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The README's upload examples: each comment line and the command after it, up to a blank line. */
function examples(): Array<{ comment: string; script: string }> {
  const readme = fs.readFileSync(path.join(APP_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it with curl'));
  const block = section.slice(section.indexOf('Each source, each format')).split('```sh\n')[1].split('```')[0];
  return block
    .trim()
    .split(/\n\s*\n/)
    .map((group) => {
      const lines = group.split('\n');
      return { comment: lines.filter((l) => l.startsWith('#')).join(' '), script: lines.filter((l) => !l.startsWith('#')).join('\n') };
    });
}

test('every upload example works as written, a photo over 100 KB included', async () => {
  const all = examples();
  // The album example names folder 7: here, the key's own folder.
  const album = (await app.http.get('/api/1/albums').query({ key })).body.albums[0].id;
  expect(all.length).toBeGreaterThanOrEqual(5);
  for (const { comment, script } of all) {
    if (script.includes('example.com')) continue;
    const { stdout } = await run('bash', ['-c', script.replaceAll('http://localhost:1337', base).replace('album_id=7', `album_id=${album}`)], { cwd: dir, env: { ...process.env, KEY: key } });
    const answer = stdout.trim();
    if (/-d format=txt/.test(script)) expect([comment, answer]).toEqual([comment, expect.stringMatching(/^http:\/\/img\.test:1337\/uploads\/.+\.jpg$/)]);
    else expect([comment, JSON.parse(answer).status_code]).toEqual([comment, 200]);
    if (script.includes('width=800')) expect(JSON.parse(answer).image.width).toBe(800);
    if (script.includes('"title":"Cat"')) expect(JSON.parse(answer).image.title).toBe('Cat');
  }
});
