/** Parallel uploads on a fresh database: all accepted, ids unique, one folder, every file served. */
import fs from 'fs';
import { startApp, type TestApp } from '../helpers/app';
import { jpeg } from '../helpers/fixtures';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

test('50 parallel uploads all succeed with unique ids', async () => {
  const key = await app.createKey();
  const photo = await jpeg(640, 480);
  const responses = await Promise.all(
    Array.from({ length: 50 }, (_, i) => app.http.post('/api/1/upload').field('key', key).attach('source', photo, `burst ${i}.jpg`))
  );
  expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
  const ids = responses.map((r) => r.body.image.id_encoded);
  expect(new Set(ids).size).toBe(50);
  expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(50);
  expect(await app.strapi.db.query('plugin::upload.file').count()).toBe(50);
  expect(await app.strapi.db.query('plugin::upload.folder').count({ where: { name: 'API uploads' } })).toBe(1);
  expect(fs.readdirSync(app.uploadsDir)).toHaveLength(150);
});
