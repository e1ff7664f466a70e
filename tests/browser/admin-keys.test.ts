/**
 * An admin's whole round trip in a real browser: log into the admin panel, create a key entry, copy
 * the key from its panel, upload an image with it through the API, find the image in the Media
 * Library, revoke the key, see the next upload refused. Then the "Image API" page as that admin
 * (usage, images, keys, deleting an image) and as an Editor (usage and images, no key, no delete).
 * Screenshots go to docs/screenshots/.
 */
import fs from 'fs';
import path from 'path';
import request from 'supertest';
import type { Browser, Dialog, Page } from 'playwright-core';
import type { ChildApp } from '../helpers/child-app';
import { png } from '../helpers/fixtures';
import { SHOTS, startBrowserApp, type BrowserApp } from './helpers/browser-app';
const ADMIN = { firstname: 'Ada', lastname: 'Admin', email: 'ada@img.test', password: 'Browser-pass-1234' };

let started: BrowserApp;
let app: ChildApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  started = await startBrowserApp({ IMAGE_API_RATE_LIMIT: 'off' });
  ({ app, browser } = started);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
}, 120_000);

afterAll(async () => {
  await started?.stop();
});

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

/**
 * The whole page in one picture: the admin scrolls an inner container, not the window, so the
 * viewport is made as tall as the content (scrolled back to the top) for the shot.
 */
async function fullShot(target: Page, name: string) {
  const height = await target.evaluate(() => {
    let tallest = document.documentElement.scrollHeight;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('*'))) {
      if (el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== 'visible') {
        tallest = Math.max(tallest, el.scrollHeight + el.getBoundingClientRect().top);
        el.scrollTop = 0;
      }
    }
    return tallest;
  });
  const viewport = target.viewportSize()!;
  await target.setViewportSize({ width: viewport.width, height: Math.min(Math.ceil(height) + 40, 4000) });
  await target.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  await target.setViewportSize(viewport);
}

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
  // Actions ask in Strapi's own dialog: a browser dialog (confirm()) would be counted here.
  let browserDialogs = 0;
  const countDialog = (dialog: Dialog) => {
    browserDialogs += 1;
    void dialog.dismiss();
  };
  page.on('dialog', countDialog);
  await page.getByRole('button', { name: 'Copy' }).click();
  const issued = await page.evaluate(() => navigator.clipboard.readText());
  expect(issued).toMatch(/^img_[A-Za-z0-9]{32}$/);
  // Masked until shown.
  expect(await panel.textContent()).toContain(issued.slice(0, 8));
  expect(await panel.textContent()).not.toContain(issued);

  // 3a. Regenerate: asked in Strapi's dialog, then the new key is shown; the old one stops working.
  await page.getByRole('button', { name: 'Regenerate' }).click();
  const confirm = page.getByRole('alertdialog');
  await confirm.getByText('Regenerate the key?').waitFor();
  await expect(confirm.textContent()).resolves.toContain('The current one stops working at once.');
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('New key issued').first().waitFor();
  await page.getByRole('button', { name: 'Copy' }).click();
  const key = await page.evaluate(() => navigator.clipboard.readText());
  expect(key).toMatch(/^img_[A-Za-z0-9]{32}$/);
  expect(key).not.toBe(issued);
  expect(browserDialogs).toBe(0);
  page.off('dialog', countDialog);
  const old = await request(app.url).post('/api/1/upload').set('X-API-Key', issued).attach('source', await png(16, 16), 'old-key.png');
  expect(old.status).toBe(401);
  // A new key is shown at once, to be sent to the requester; hidden again on request.
  expect(await panel.textContent()).toContain(key);
  await page.getByRole('button', { name: 'Hide' }).click();
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

  // 4b. The Image API page: its own menu icon (not the Media Library's); nothing viewed yet, so
  // "Most viewed" says so instead of listing unseen images.
  await page.goto(`${app.url}/admin`);
  const iconOf = (name: string) => page.getByRole('link', { name }).first().locator('svg').first().innerHTML();
  expect(await iconOf('Image API')).not.toBe(await iconOf('Media Library'));
  await page.getByRole('link', { name: 'Image API' }).first().click();
  await expect(page.getByTestId('image-api-top-viewed-empty').textContent()).resolves.toContain('No image has been viewed yet');
  await expect(page.getByTestId('image-api-recent').getByTestId('image-api-image-card').count()).resolves.toBe(1);

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


/** The admin API as the panel calls it, with the first admin's token. */
async function asAdmin() {
  const api = request(app.url);
  const login = await api.post('/admin/login').send({ email: ADMIN.email, password: ADMIN.password });
  expect(login.status).toBe(200);
  const auth = { Authorization: `Bearer ${login.body.data.token}` };
  return { api, auth };
}

test('a refused key save keeps what the admin typed and marks every wrong field', async () => {
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.api-key/create`);
  const field = (name: string) => page.locator(`input[name="${name}"], textarea[name="${name}"]`);
  await field('name').fill('Typo key');
  await field('description').fill('typed before the refusal');
  await field('rate_limit').fill('5/week');
  await field('default_expiration').fill('soon');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText(/^Rate limit: /).first().waitFor();
  await page.getByText(/^Default expiration: /).first().waitFor();
  await expect(field('name').inputValue()).resolves.toBe('Typo key');
  await expect(field('description').inputValue()).resolves.toBe('typed before the refusal');
  await expect(field('rate_limit').inputValue()).resolves.toBe('5/week');
  expect(page.url()).toMatch(/\/create/);
  // Leaving the unsaved form: the browser asks (beforeunload), and the test leaves.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.goto(`${app.url}/admin`);
});

test("a key's edit view: human labels, server fields read-only, no preview box", async () => {
  const { api, auth } = await asAdmin();
  const created = await api
    .post('/content-manager/collection-types/plugin::image-api.api-key')
    .set(auth)
    .send({ name: 'Screenshot tool', description: 'ShareX on the design team', rate_limit: '100/minute', quota_images: 10 });
  expect(created.status).toBe(201);
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.api-key/${created.body.data.documentId}`);
  await page.getByTestId('image-api-key').waitFor();
  for (const label of ['Rate limit', 'Default image expiry', 'Owner (admin)', 'Key starts with', 'Uploads', 'Last used']) {
    await expect(page.getByText(label, { exact: true }).first().isVisible()).resolves.toBe(true);
  }
  await expect(page.getByText('Set up preview').count()).resolves.toBe(0);
  await expect(page.getByText('upload_count', { exact: true }).count()).resolves.toBe(0);
  await expect(page.locator('input[name="upload_count"]').isDisabled()).resolves.toBe(true);
  await expect(page.locator('input[name="key_prefix"]').isDisabled()).resolves.toBe(true);
  await expect(page.locator('input[name="rate_limit"]').isDisabled()).resolves.toBe(false);
  // What it holds against its quota, in the side panel.
  await expect(page.getByTestId('image-api-key-panel-holding').textContent()).resolves.toBe('0 / 10 images · 0 B');
  // The entry's actions render last: without this wait the shot once caught an empty Save panel.
  await page.getByRole('button', { name: 'Save' }).waitFor();
  await shot('key-edit');

  // The list: the columns that matter.
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.api-key`);
  await page.getByText('Screenshot tool').first().waitFor();
  const headings = await page.locator('thead th').allTextContents();
  for (const heading of ['Name', 'Active', 'Key starts', 'Key ends', 'Expires', 'Last used', 'Uploads']) {
    expect(headings.join('|')).toContain(heading);
  }
  await shot('key-list');
});

test('the Image API page as an admin: totals, chart, most viewed, recent uploads with their key, keys, delete', async () => {
  const { api, auth } = await asAdmin();
  const entry = await api.get('/content-manager/collection-types/plugin::image-api.api-key?filters[name][$eq]=Screenshot%20tool').set(auth);
  const documentId = entry.body.results[0].documentId;
  const key = (await api.get(`/image-api/api-keys/${documentId}/key`).set(auth)).body.data.key;
  const titles = ['Harbour at dusk', 'Team photo', 'Whiteboard', 'Release banner'];
  const uploaded = [];
  for (const [i, title] of titles.entries()) {
    const res = await api.post('/api/1/upload').set('X-API-Key', key).field('title', title).attach('source', await png(400 + i * 40, 260), `shot-${i}.png`);
    expect(res.status).toBe(200);
    uploaded.push(res.body.image);
  }
  for (let i = 0; i < 5; i++) await api.get(new URL(uploaded[0].url_viewer).pathname);
  await api.get(new URL(uploaded[1].url_viewer).pathname);

  await page.goto(`${app.url}/admin`);
  await page.getByRole('link', { name: 'Image API' }).first().click();
  await page.getByTestId('image-api-usage-chart').first().waitFor();
  // One image from the first test and four here.
  await expect(page.getByTestId('image-api-total-images').textContent()).resolves.toBe('5');
  await expect(page.getByTestId('image-api-total-views').textContent()).resolves.toBe('6');
  const top = page.getByTestId('image-api-top-viewed').getByTestId('image-api-image-card');
  await expect(top.first().textContent()).resolves.toContain('Harbour at dusk');
  await expect(top.first().textContent()).resolves.toContain('5 views');
  const recent = page.getByTestId('image-api-recent').getByTestId('image-api-image-card');
  await expect(recent.count()).resolves.toBe(5);
  await expect(recent.first().textContent()).resolves.toContain('Key: Screenshot tool');
  // The chart drew today's bar.
  await expect(page.locator('.recharts-bar-rectangle').count()).resolves.toBeGreaterThan(0);
  const keys = page.getByTestId('image-api-keys-table');
  await expect(keys.textContent()).resolves.toMatch(/Browser test key.*revoked/);
  await expect(keys.textContent()).resolves.toMatch(/Screenshot tool.*active/);
  await expect(keys.locator('tr', { hasText: 'Screenshot tool' }).getByTestId('image-api-key-holding').textContent()).resolves.toMatch(/^4 \/ 10 images · \d+(\.\d)? (KB|MB)$/);
  // Each card paints the image's placeholder (its ThumbHash, drawn in the browser) while the thumbnail loads.
  const backdrop = await recent.first().getByTestId('image-api-image-placeholder').evaluate((box) => getComputedStyle(box).backgroundImage);
  expect(backdrop).toMatch(/^url\("data:image\/png;base64,/);
  await keys.locator('tr', { hasText: 'Screenshot tool' }).getByRole('button', { name: 'Show' }).click();
  await page.getByTestId('image-api-key-detail').getByRole('button', { name: 'ShareX (.sxcu)' }).waitFor();
  await fullShot(page, 'usage-page');

  // Delete the latest upload from the grid, once confirmed in Strapi's dialog.
  await recent.first().getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm.textContent()).resolves.toContain('Delete "Release banner"? Its files and record go for good.');
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Image deleted').first().waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="image-api-total-images"]')?.textContent === '4');
  await expect(recent.count()).resolves.toBe(4);
  expect((await api.get(new URL(uploaded[3].url_viewer).pathname)).status).toBe(404);

  // A key issued from the page: "New key" opens a new API key entry; saving it makes the key, in its panel.
  await page.getByRole('link', { name: 'New key' }).click();
  await page.waitForURL(/plugin::image-api\.api-key\/create/);
  await page.locator('input[name="name"]').fill('Issued from the page');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL(/plugin::image-api\.api-key\/(?!create)[a-z0-9]+/, { timeout: 30_000 });
  await page.waitForFunction(() => /^img_/.test(document.querySelector('[data-testid="image-api-key"]')?.textContent ?? ''));
  const issued = await api.get('/content-manager/collection-types/plugin::image-api.api-key?filters[name][$eq]=Issued%20from%20the%20page').set(auth);
  expect(issued.body.results).toHaveLength(1);
  const issuedKey = (await api.get(`/image-api/api-keys/${issued.body.results[0].documentId}/key`).set(auth)).body.data.key;
  // It works (its albums: nothing stored, so the page's counts below stay as they are).
  expect((await api.get('/api/1/albums').set('X-API-Key', issuedKey)).status).toBe(200);
});

test('the Image API page as an Editor: usage and images, no key anywhere (nor in the Content Manager), no delete, no key reveal', async () => {
  const { api, auth } = await asAdmin();
  const roles = await api.get('/admin/roles').set(auth);
  const editorRole = roles.body.data.find((role: { code: string }) => role.code === 'strapi-editor');
  const created = await api
    .post('/admin/users')
    .set(auth)
    .send({ firstname: 'Eddie', lastname: 'Editor', email: 'eddie@img.test', roles: [editorRole.id] });
  expect(created.status).toBe(201);
  const password = 'Editor-pass-1234';
  expect((await api.put(`/admin/users/${created.body.data.id}`).set(auth).send({ password, isActive: true })).status).toBe(200);

  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const editorPage = await context.newPage();
  editorPage.setDefaultTimeout(20_000);
  await editorPage.goto(`${app.url}/admin/auth/login`);
  await editorPage.locator('input[name="email"]').fill('eddie@img.test');
  await editorPage.locator('input[name="password"]').fill(password);
  await editorPage.getByRole('button', { name: 'Login' }).click();
  await editorPage.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 30_000 });
  await editorPage.getByRole('link', { name: 'Image API' }).first().click();
  await editorPage.getByTestId('image-api-usage-chart').first().waitFor();
  await expect(editorPage.getByTestId('image-api-total-images').textContent()).resolves.toBe('4');
  await expect(editorPage.getByTestId('image-api-recent').getByTestId('image-api-image-card').count()).resolves.toBe(4);
  await expect(editorPage.getByTestId('image-api-keys-table').count()).resolves.toBe(0);
  await expect(editorPage.getByTestId('image-api-image-key').count()).resolves.toBe(0);
  await expect(editorPage.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0);
  await expect(editorPage.getByRole('link', { name: 'New key' }).count()).resolves.toBe(0);
  await fullShot(editorPage, 'usage-page-editor');

  // The Content Manager: API images, and no API keys (credentials, not content).
  await editorPage.goto(`${app.url}/admin/content-manager`);
  await editorPage.getByRole('link', { name: 'API image' }).first().waitFor();
  await expect(editorPage.getByRole('link', { name: 'API key' }).count()).resolves.toBe(0);

  // The routes behind the page refuse what the page does not show.
  const login = await api.post('/admin/login').send({ email: 'eddie@img.test', password });
  const editor = { Authorization: `Bearer ${login.body.data.token}` };
  const entry = await api.get('/content-manager/collection-types/plugin::image-api.api-key?filters[name][$eq]=Screenshot%20tool').set(auth);
  expect((await api.get(`/image-api/api-keys/${entry.body.results[0].documentId}/key`).set(editor)).status).toBe(403);
  expect((await api.get('/image-api/usage/keys').set(editor)).status).toBe(403);
  await context.close();
});

test("an image record's panel: preset URLs and an <img srcset> whose every URL answers with an image", async () => {
  const { api, auth } = await asAdmin();
  const entry = await api.get('/content-manager/collection-types/plugin::image-api.api-key?filters[name][$eq]=Screenshot%20tool').set(auth);
  const key = (await api.get(`/image-api/api-keys/${entry.body.results[0].documentId}/key`).set(auth)).body.data.key;
  const uploaded = await api.post('/api/1/upload').set('X-API-Key', key).field('title', 'Wide shot').attach('source', await png(1200, 600), 'wide.png');
  expect(uploaded.status).toBe(200);
  const record = await api.get(`/content-manager/collection-types/plugin::image-api.image?filters[id_encoded][$eq]=${uploaded.body.image.id_encoded}`).set(auth);
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.image/${record.body.results[0].documentId}`);
  const snippet = (await page.getByTestId('image-api-srcset').textContent()) ?? '';
  expect(snippet).toContain('alt="Wide shot"');
  const urls = [...snippet.matchAll(/(https?:\/\/\S+?)(?:"|\s\d+w)/g)].map((match) => match[1]);
  // src (medium), then thumbnail (245), small (500), medium (750), large (1000) and the original
  // (1200): xlarge would enlarge.
  expect(urls).toHaveLength(6);
  expect(snippet).toContain(' 1200w');
  for (const url of urls) {
    const res = await api.get(new URL(url).pathname + new URL(url).search);
    expect([url, res.status, res.headers['content-type']]).toEqual([url, 200, 'image/png']);
  }
  await expect(page.getByTestId('image-api-preset-url').count()).resolves.toBe(5);
  await page.getByRole('button', { name: 'Copy <img srcset>' }).click();
  await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(snippet);
  await shot('image-serving-panel');

  // The list of API images: no "Create new entry" (uploads make them), and an untitled image is
  // named by its file name, as in the Media Library.
  const untitled = await api.post('/api/1/upload').set('X-API-Key', key).attach('source', await png(300, 200), 'untitled-upload.png');
  expect(untitled.status).toBe(200);
  await page.goto(`${app.url}/admin/content-manager/collection-types/plugin::image-api.image`);
  await page.getByText('untitled-upload.png').first().waitFor();
  await page.getByText('Wide shot').first().waitFor();
  await expect(page.getByRole('link', { name: /Create new entry/ }).count()).resolves.toBe(0);
  await expect(page.getByRole('button', { name: /Create new entry/ }).count()).resolves.toBe(0);
  await page.getByText('untitled-upload.png').first().click();
  await page.getByRole('heading', { name: 'untitled-upload.png' }).waitFor();
});
