/**
 * The docs page (GET /api/1/docs) in a real browser: Swagger UI, served by the app itself, renders
 * the OpenAPI document with its upload operation; no request leaves the app's origin (it works
 * offline). Its screenshot goes to docs/screenshots/api-docs.png.
 */
import path from 'path';
import type { Browser } from 'playwright-core';
import type { ChildApp } from '../helpers/child-app';
import { SHOTS, startBrowserApp, type BrowserApp } from './helpers/browser-app';

let started: BrowserApp;
let app: ChildApp;
let browser: Browser;

beforeAll(async () => {
  started = await startBrowserApp();
  ({ app, browser } = started);
}, 120_000);

afterAll(async () => {
  await started?.stop();
});

test('the docs page renders the upload operation, from the app alone', async () => {
  const page = await (await browser.newContext({ viewport: { width: 1300, height: 1000 } })).newPage();
  const origin = new URL(app.url).origin;
  const elsewhere: string[] = [];
  const blocked: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  const answer = await page.goto(`${app.url}/api/1/docs`);
  expect(answer?.status()).toBe(200);
  // Swagger UI lists each operation with its method and path.
  const upload = page.locator('.opblock-post', { hasText: '/api/1/upload' }).first();
  await upload.waitFor({ timeout: 30_000 });
  await expect(upload.locator('.opblock-summary-description').textContent()).resolves.toContain('Upload an image');
  await expect(page.locator('.opblock', { hasText: '/1/upload' }).count()).resolves.toBeGreaterThanOrEqual(4);
  await expect(page.locator('.info .title').first().textContent()).resolves.toContain('Image API');
  // Opened, the operation shows its parameters and the error table's statuses.
  await upload.locator('.opblock-summary').click();
  await page.locator('.opblock-post.is-open .parameters').first().waitFor();
  await expect(page.locator('.opblock-post.is-open td.response-col_status', { hasText: '413' }).count()).resolves.toBeGreaterThan(0);
  await page.screenshot({ path: path.join(SHOTS, 'api-docs.png') });
  expect(elsewhere).toEqual([]);
  expect(blocked).toEqual([]);
});
