/** Parallel uploads on a fresh database: all accepted, ids unique, one folder, every file served. */
import fs from 'fs';
import { startApp, type TestApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';

let app: TestApp;
beforeAll(async () => {
  // Every upload of the bursts below in flight at once: admission control (16 by default, and half of
  // them for bodies whose key comes with them) is tested in load-and-slow-bodies.test.ts. The keys go
  // in the header here, so that every upload is vouched for before its body.
  // One key's uploads take turns on its row (its quota, in each upload's transaction): on PostgreSQL
  // the last of 50 waits for 49 commits, which on a loaded CI machine passed the 5 s statement timeout
  // once (a 503, as it should be then). What this file tests is that all of them are stored, each
  // once; database timeouts are tested in tests/faults/database.test.ts.
  app = await startApp({ IMAGE_API_MAX_REQUESTS_IN_FLIGHT: '64', IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '64', DATABASE_QUERY_TIMEOUT_MS: '30000' });
});
afterAll(async () => {
  await app?.stop();
});

test('50 parallel uploads all succeed with unique ids', async () => {
  const key = await app.createKey();
  const photo = await jpeg(640, 480);
  const responses = await Promise.all(
    Array.from({ length: 50 }, (_, i) => app.upload(key, photo, { filename: `burst ${i}.jpg` }))
  );
  expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
  const ids = responses.map((r) => r.body.image.id_encoded);
  expect(new Set(ids).size).toBe(50);
  expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(50);
  expect(await app.strapi.db.query('plugin::upload.file').count()).toBe(50);
  expect(await app.strapi.db.query('plugin::upload.folder').count({ where: { name: 'API uploads' } })).toBe(1);
  expect(fs.readdirSync(app.uploadsDir)).toHaveLength(150);
});

test('parallel uploads of different images, twice over (received bytes sit in pooled buffers): each stores its own bytes and variants', async () => {
  const key = await app.createKey();
  // Same size class, different dimensions: a mixed-up buffer would show in the bytes or the sizes.
  const photos = await Promise.all(Array.from({ length: 6 }, (_, i) => jpeg(600 + 16 * i, 400 + 8 * i)));
  for (let wave = 0; wave < 2; wave++) {
    const responses = await Promise.all(
      photos.map((photo, i) => app.upload(key, photo, { filename: `photo ${wave}-${i}.jpg` }))
    );
    responses.forEach((res, i) => {
      expect(res.status).toBe(200);
      const { image } = res.body;
      expect([image.width, image.height]).toEqual([600 + 16 * i, 400 + 8 * i]);
      expect(image.medium.height).toBe(Math.round(((400 + 8 * i) * 500) / (600 + 16 * i)));
      const stored = fs.readFileSync(`${app.uploadsDir}/${image.filename}`);
      expect(stored.equals(photos[i])).toBe(true);
    });
  }
});
