/**
 * Kept transformation results past `transformCacheBytes` (docs/api.md, "Transformations"): the least recently used
 * go, rows and files; and an expired image's results go with it in the expiry sweep.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';
import { signedPath, transformSecrets } from '../../helpers/imgproxy';

const { key: KEY, salt: SALT } = transformSecrets();
const app = useApp({ IMAGE_API_TRANSFORM_CACHE_BYTES: '5000', IMAGE_API_TRANSFORM_KEY: KEY, IMAGE_API_TRANSFORM_SALT: SALT });
const signPath = (rest: string) => signedPath(KEY, SALT, rest);
const service = (name: string) => app.strapi.plugin('image-api').service(name);
const renditions = () => app.strapi.db.connection('image_api_renditions');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const onDisk = (row: { hash: string; ext: string }) => fs.existsSync(path.join(app.uploadsDir, `${row.hash}${row.ext}`));

test('past the byte budget, the least recently used results go, rows and files; the rest stay', async () => {
  const image = (await app.upload(app.key, await jpeg(800, 600), { filename: 'budget.jpg' })).body.image;
  const urlOf = (width: number) => signPath(`/rs:fit:${width}:0/plain/${image.url}@jpg`);
  // A second apart: MariaDB keeps datetimes to the second.
  for (const width of [100, 110, 120]) {
    expect((await app.http.get(urlOf(width))).status).toBe(200);
    await service('renditions').settled();
    await sleep(1100);
  }
  const before = await renditions().where('image_name', image.name).orderBy('width');
  expect(before.map((row: { width: number }) => row.width)).toEqual([100, 110, 120]);
  const sizes = before.map((row: { size: number }) => Number(row.size));
  // Two fit in the budget, three do not.
  expect(sizes[0] + sizes[1] + sizes[2]).toBeGreaterThan(5000);
  expect(sizes[0] + sizes[2]).toBeLessThanOrEqual(5000);
  // The oldest is used again: it is now the most recent.
  expect((await app.http.get(urlOf(100))).status).toBe(200);
  await service('renditions').maintain();
  const after = await renditions().where('image_name', image.name).orderBy('width');
  const kept = after.map((row: { width: number }) => row.width);
  expect(kept).toContain(100);
  expect(kept).not.toContain(110);
  expect(after.reduce((n: number, row: { size: number }) => n + Number(row.size), 0)).toBeLessThanOrEqual(5000);
  for (const row of before) expect(onDisk(row)).toBe(kept.includes(row.width));
  expect(await app.strapi.db.connection('image_api_pending_uploads').where('name', 'like', 'rendition:%')).toHaveLength(0);
});

test("an expired image's transformations answer 404 at once, and the sweep removes its kept results", async () => {
  const image = (await app.upload(app.key, await jpeg(400, 300), { filename: 'expiring.jpg' })).body.image;
  const url = `/img/_/pr:thumbnail/plain/${image.url}@jpg`;
  expect((await app.http.get(url)).status).toBe(200);
  await service('renditions').settled();
  const rows = await renditions().where('image_name', image.name);
  expect(rows).toHaveLength(1);
  await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
  service('image-sources').forget([image.name]);
  const gone = await app.http.get(url);
  expect([gone.status, gone.headers['cache-control']]).toEqual([404, 'no-store']);
  await service('expiry-sweep').run();
  expect(await renditions().where('image_name', image.name)).toHaveLength(0);
  expect(onDisk(rows[0])).toBe(false);
});
