/**
 * Moderation's review in a real browser: images held by their key's moderation (mode `hold`,
 * threshold 0: every upload passes it) are in the "Image review" page's queue, each thumbnail blurred
 * and inert until the reviewer clicks Show; Approve serves a held image again, Take down (with the
 * reason asked in a dialog) deletes another. A screenshot of the page goes to docs/screenshots/.
 */
import path from 'path';
import request from 'supertest';
import type { Page } from 'playwright-core';
import type { ChildApp } from '../helpers/child-app';
import { jpeg } from '../helpers/fixtures';
import { SHOTS, startBrowserApp, type BrowserApp } from './helpers/browser-app';
import en from '../../plugins/image-api/admin/src/translations/en.json';

const ADMIN = { firstname: 'Rita', lastname: 'Reviewer', email: 'rita@img.test', password: 'Browser-pass-1234' };

let started: BrowserApp;
let app: ChildApp;
let page: Page;

beforeAll(async () => {
  started = await startBrowserApp({ IMAGE_API_RATE_LIMIT: 'off' });
  app = started.app;
  const context = await started.browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
}, 120_000);

afterAll(async () => {
  await started?.stop();
});

/** The computed style of a card's thumbnail. */
const thumbnailStyle = (card: ReturnType<Page['getByTestId']>) =>
  card.getByTestId('image-api-review-thumbnail').evaluate((img: HTMLImageElement) => {
    const style = getComputedStyle(img);
    return { filter: style.filter, pointerEvents: style.pointerEvents, loaded: img.complete && img.naturalWidth > 0 };
  });

test('the queue blurred until shown; approve serves a held image again; take down deletes one', async () => {
  const api = request(app.url);
  const registered = await api.post('/admin/register-admin').send(ADMIN);
  expect(registered.status).toBe(200);
  const admin = { Authorization: `Bearer ${registered.body.data.token}` };
  // A key that holds everything it classifies.
  const entry = await api
    .post('/content-manager/collection-types/plugin::image-api.api-key')
    .set(admin)
    .send({ name: 'Forum uploads', description: 'held for review', moderation: 'hold', moderation_threshold: 0 });
  expect(entry.status).toBe(201);
  const key = (await api.get(`/image-api/api-keys/${entry.body.data.documentId}/key`).set(admin)).body.data.key;
  const held = [];
  for (const [width, height] of [[800, 600], [640, 640]]) {
    // The first upload loads the classifier's model (seconds).
    const uploaded = await api.post('/api/1/upload').set('X-API-Key', key).attach('source', await jpeg(width, height), `held-${width}.jpg`).timeout(90_000);
    expect([uploaded.status, uploaded.body.image.moderation]).toEqual([200, 'held']);
    held.push(uploaded.body.image);
  }
  const direct = (image: { url: string }) => api.get(new URL(image.url).pathname);
  for (const image of held) expect((await direct(image)).status).toBe(404);

  await page.goto(`${app.url}/admin/auth/login`);
  await page.locator('input[name="email"]').fill(ADMIN.email);
  await page.locator('input[name="password"]').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 30_000 });

  // The menu's link, behind images.review (a Super Admin has it).
  await page.getByRole('link', { name: en['review.menu'] }).click();
  await page.waitForURL(/\/admin\/plugins\/image-api-review/);
  const cards = page.getByTestId('image-api-review-card');
  await cards.first().waitFor();
  expect(await cards.count()).toBe(2);
  await page.getByText('2 images to review', { exact: false }).first().waitFor();

  // Oldest first: the first held image. Its thumbnail is loaded (from the admin route) and blurred.
  const first = page.locator(`[data-testid="image-api-review-card"][data-id="${held[0].id_encoded}"]`);
  await page.waitForFunction((id) => {
    const img = document.querySelector<HTMLImageElement>(`[data-id="${id}"] [data-testid="image-api-review-thumbnail"]`);
    return Boolean(img && img.complete && img.naturalWidth > 0);
  }, held[0].id_encoded);
  const hidden = await thumbnailStyle(first);
  expect(hidden.filter).toContain('blur(');
  expect(hidden.pointerEvents).toBe('none');
  expect(hidden.loaded).toBe(true);
  await expect(first.getByTestId('image-api-review-state').textContent()).resolves.toBe(en['review.state.held']);
  await expect(first.textContent()).resolves.toContain('Key: Forum uploads');
  await expect(first.getByTestId('image-api-review-scores').textContent()).resolves.toMatch(/NSFW score: \d+(\.\d)? %/);
  await page.screenshot({ path: path.join(SHOTS, 'review-queue.png') });

  await first.getByTestId('image-api-review-show').click();
  const shown = await thumbnailStyle(first);
  expect(shown.filter).toBe('none');
  expect(shown.pointerEvents).toBe('auto');
  // The other card stays blurred.
  const second = page.locator(`[data-testid="image-api-review-card"][data-id="${held[1].id_encoded}"]`);
  expect((await thumbnailStyle(second)).filter).toContain('blur(');

  // Approve, confirmed in Strapi's dialog: out of the queue, served again.
  await first.getByTestId('image-api-review-approve').click();
  const confirm = page.getByRole('alertdialog');
  await confirm.getByText(en['review.approve.title']).waitFor();
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText(en['review.approve.done']).first().waitFor();
  await first.waitFor({ state: 'detached' });
  expect((await direct(held[0])).status).toBe(200);

  // Take down: the reason is asked; the button waits for one.
  await second.getByTestId('image-api-review-takedown').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText(en['review.takedown.title']).waitFor();
  await expect(dialog.getByTestId('image-api-review-reason-confirm').isDisabled()).resolves.toBe(true);
  await dialog.getByTestId('image-api-review-reason').fill('Spam from a bot');
  await dialog.getByTestId('image-api-review-reason-confirm').click();
  await page.getByText(en['review.takedown.done']).first().waitFor();
  await page.getByTestId('image-api-review-empty').waitFor();
  expect((await direct(held[1])).status).toBe(404);
  const viewer = await api.get(new URL(held[1].url_viewer).pathname);
  expect(viewer.status).toBe(404);
  const queue = await api.get('/image-api/review/queue').set(admin);
  expect(queue.body.data.total).toBe(0);
}, 240_000);
