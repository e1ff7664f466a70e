/**
 * The README's "Try it with curl", run top to bottom as written by bash and the real curl against a
 * running app, in a fresh folder: the photo it makes (over the size where base64 on the command line
 * used to fail, "Argument list too long", about 96 KB), every upload, the album it looks up, both
 * deletions, and the URL source. Only the addresses differ: `BASE`, defined once, names the test's
 * app; the remote photo the URL example names is served from loopback instead (tests send traffic to
 * loopback only), at the same path, and the app allows that address. The key comes from the test (the
 * key CLI has its own test).
 */
import { execFile } from 'child_process';
import http from 'http';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { promisify } from 'util';
import type { AddressInfo } from 'net';
import { startApp, APP_DIR, PUBLIC_URL, type TestApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';

const run = promisify(execFile);
let app: TestApp;
let dir: string;
let key: string;
let base: string;
/** Stands in for the internet host the URL example names: answers its path with a JPEG. */
let remote: http.Server;
let remoteBase: string;

beforeAll(async () => {
  app = await startApp({ IMAGE_API_URL_ALLOWLIST: '127.0.0.1' });
  const photo = await jpeg(640, 480);
  remote = http.createServer((req, res) => {
    const found = req.url === '/wikipedia/commons/3/3a/Cat03.jpg';
    res.writeHead(found ? 200 : 404, { 'content-type': found ? 'image/jpeg' : 'text/plain' }).end(found ? photo : 'not found');
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  remoteBase = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  key = await app.createKey('curl demo');
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.strapi.server.httpServer.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-readme-'));
  // The answers' links name the app's public address (PUBLIC_URL, img.test:1337): curl is told, by a
  // .curlrc of the test's own, that this is where it is.
  const { hostname, port } = new URL(PUBLIC_URL);
  fs.writeFileSync(path.join(dir, '.curlrc'), `connect-to = "${hostname}:${port}:127.0.0.1:${new URL(base).port}"\n`);
});
afterAll(async () => {
  await app?.stop();
  remote?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The remote photo the URL example names: a real one on the internet, for a reader's first try. */
const REMOTE_PHOTO = 'https://upload.wikimedia.org/wikipedia/commons/3/3a/Cat03.jpg';

/** The section's shell blocks, as groups: comment lines and the commands after them, up to a blank line. */
function examples(): Array<{ comment: string; script: string }> {
  const readme = fs.readFileSync(path.join(APP_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it with curl'), readme.indexOf('## Documentation'));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks
    .flatMap((block) => block.trim().split(/\n\s*\n/))
    .map((group) => {
      const lines = group.split('\n');
      return { comment: lines.filter((l) => l.startsWith('#')).join(' '), script: lines.filter((l) => !l.startsWith('#')).join('\n') };
    });
}

test('the section runs top to bottom as written: a photo over 100 KB, every upload, an album, both deletions', async () => {
  const groups = examples();
  expect(groups.length).toBeGreaterThanOrEqual(9);
  // The server is named once, as BASE, and every command goes through it.
  const commands = groups.map(({ script }) => script).join('\n');
  expect(commands.match(/^BASE=http:\/\/localhost:1337$/gm)).toHaveLength(1);
  expect(commands.replace(/^BASE=.*$/m, '')).not.toMatch(/localhost|127\.0\.0\.1/);
  expect(commands).toContain(REMOTE_PHOTO);
  // One shell, so what a command sets ($ALBUM) is there for the next; each group's output is marked.
  const marker = (i: number) => `@@@ ${i} @@@`;
  const script = [
    'set -euo pipefail',
    ...groups.map(({ script }, i) => `echo '${marker(i)}'\n${script.split('\n').filter((line) => !line.startsWith('KEY=$(')).join('\n')}`),
  ]
    .join('\n')
    .replace(/^BASE=.*$/m, `BASE=${base}`)
    .replaceAll(REMOTE_PHOTO, `${remoteBase}${new URL(REMOTE_PHOTO).pathname}`);
  const { stdout } = await run('bash', ['-c', script], {
    cwd: dir,
    // The photo is made with this repository's sharp, as it is when run from the repository's folder.
    env: { ...process.env, KEY: key, NODE_PATH: path.join(APP_DIR, 'node_modules'), CURL_HOME: dir },
    maxBuffer: 16 * 1024 * 1024,
  });
  expect(fs.statSync(path.join(dir, 'cat.jpg')).size).toBeGreaterThan(100_000);
  const outputs = groups.map((_, i) => stdout.split(marker(i))[1].split('@@@')[0].trim());
  const checked = new Set<string>();
  groups.forEach(({ comment, script }, i) => {
    const answer = outputs[i];
    const json = () => JSON.parse(answer);
    if (script.includes('format=redirect')) expect([comment, answer]).toEqual([comment, expect.stringMatching(/^HTTP\/1\.1 302 [\s\S]*\r\nlocation: http:\/\/img\.test:1337\/image\/\w+\r\n/i)]);
    else if (/-d format=txt/.test(script)) expect([comment, answer]).toEqual([comment, expect.stringMatching(/^http:\/\/img\.test:1337\/uploads\/.+\.jpg$/)]);
    else if (script.includes('width=800')) expect([comment, json().image.width, json().image.expiration_date_gmt]).toEqual([comment, 800, expect.any(String)]);
    else if (script.includes('"title":"Cat"')) expect([comment, json().image.title]).toEqual([comment, 'Cat']);
    else if (script.startsWith('curl -X DELETE') || script.includes('/api/1/delete')) expect([comment, json()]).toMatchObject([comment, { status_code: 200, success: { message: 'image deleted' } }]);
    else if (script.startsWith('curl "') && script.includes('/api/1/albums')) expect([comment, json().albums[0].id]).toEqual([comment, expect.any(Number)]);
    else if (script.startsWith('curl -F')) expect([comment, json().status_code]).toEqual([comment, 200]);
    else return;
    checked.add(comment);
  });
  expect(checked.size).toBe(8);
  // The album upload went to the album the section looked up; both deleted images are gone.
  for (const name of ['first.json', 'second.json']) {
    const image = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')).image;
    expect((await app.http.get(app.pathOf(image.url_viewer))).status).toBe(404);
  }
});
