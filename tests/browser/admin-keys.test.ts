/**
 * An admin's whole round trip in a real browser: log into the admin panel, create a key entry, copy
 * the key from its panel, upload an image with it through the API, find the image in the Media
 * Library, revoke the key, see the next upload refused. Screenshots go to docs/screenshots/.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import request from 'supertest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startChildApp, type ChildApp } from '../helpers/child-app';
import { createScratchDb, type ScratchDb } from '../helpers/scratch-db';
import { png } from '../helpers/fixtures';

const SHOTS = path.join(__dirname, '..', '..', 'docs', 'screenshots');
const ADMIN = { firstname: 'Ada', lastname: 'Admin', email: 'ada@img.test', password: 'Browser-pass-1234' };

let db: ScratchDb;
let publicDir: string;
let app: ChildApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  db = await createScratchDb('sqlite');
  publicDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-browser-'));
  fs.mkdirSync(path.join(publicDir, 'uploads'));
  app = await startChildApp({ ...db.env, PUBLIC_DIR: publicDir, LOG_LEVEL: 'warn', IMAGE_API_RATE_LIMIT: 'off' });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await db?.drop();
  if (publicDir) fs.rmSync(publicDir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

test('issue a key in the panel, upload with it, find the image, revoke the key', async () => {
  // 1. The first admin registers, which logs them in.
  await page.goto(`${app.url}/admin`);
  const field = (name: string) => page.locator(`input[name="${name}"], textarea[name="${name}"]`);
  await field('firstname').fill(ADMIN.firstname);
  await field('lastname').fill(ADMIN.lastname);
  await field('email').fill(ADMIN.email);
  await field('password').fill(ADMIN.password);
  await field('confirmPassword').fill(ADMIN.password);
  await page.getByRole('button', { name: "Let's start" }).click();
  await page.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 30_000 });

  // 2. A new "API key" entry in the Content Manager.
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.api-key/create`);
  await field('name').fill('Browser test key');
  await field('description').fill('uploads from the end-to-end test');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL(/plugin::image-api\.api-key\/(?!create)[a-z0-9]+/, { timeout: 30_000 });

  // 3. The key, from the panel's copy button.
  const panel = page.getByTestId('image-api-key');
  await panel.waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid="image-api-key"]')?.textContent?.includes('…'));
  await shot('key-panel');
  await page.getByRole('button', { name: 'Copy' }).click();
  const key = await page.evaluate(() => navigator.clipboard.readText());
  expect(key).toMatch(/^img_[A-Za-z0-9]{32}$/);
  expect(await panel.textContent()).toContain(key.slice(0, 8));
  expect(await panel.textContent()).not.toContain(key);

  // 3b. The ShareX configuration, downloaded from the panel, holds that key.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'ShareX (.sxcu)' }).click()]);
  expect(download.suggestedFilename()).toBe('image-api.sxcu');
  const sxcu = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
  expect(sxcu).toMatchObject({ Headers: { 'X-API-Key': key }, FileFormName: 'source', RequestURL: expect.stringMatching(/\/api\/1\/upload$/) });

  // 4. An upload through the API with that key.
  const api = request(app.url);
  const uploaded = await api.post('/api/1/upload').set('X-API-Key', key).attach('source', await png(320, 200), 'browser-test.png');
  expect(uploaded.status).toBe(200);

  // 5. The image in the Media Library, in the "API uploads" folder.
  await page.goto(`${app.url}/admin/plugins/upload`);
  // The folder tree in the side navigation.
  await page.locator('[data-testid^="folder-tree-node-"]', { hasText: 'API uploads' }).click();
  await page.getByText('browser-test.png').first().waitFor({ timeout: 30_000 });
  await shot('media-library');

  // 6. Revoke: deactivate the entry.
  await page.goBack();
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.api-key`);
  await page.getByText('Browser test key').first().click();
  await page.getByTestId('image-api-key').waitFor();
  const active = page.getByRole('checkbox', { name: 'active' });
  if (await active.count()) await active.click();
  else await page.getByText('False', { exact: true }).first().click();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved').first().waitFor({ timeout: 15_000 }).catch(() => undefined);
  await shot('key-revoked');

  // 7. The next upload is refused.
  const refused = await api.post('/api/1/upload').set('X-API-Key', key).attach('source', await png(32, 32), 'after-revoke.png');
  expect(refused.status).toBe(403);
  expect(refused.body.error).toEqual({ message: 'API key revoked', code: 100 });
});
