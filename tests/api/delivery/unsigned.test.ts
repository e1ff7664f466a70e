/**
 * Transformations with no key and salt (contract §13.2): every URL is accepted, but only presets are
 * kept; any other size is rendered each time, so a client without a key cannot fill the storage
 * with sizes of its choosing (docs/security.md, "Transformations").
 */
import fs from 'fs';
import { useApp } from '../../helpers/app';
import { jpeg } from '../../helpers/fixtures';

// Set empty, so the app's .env cannot set them.
const app = useApp({ IMAGE_API_TRANSFORM_KEY: '', IMAGE_API_TRANSFORM_SALT: '' });
const renditions = () => app.strapi.db.connection('image_api_renditions');
const settled = () => app.strapi.plugin('image-api').service('renditions').settled();

test('any size is answered unsigned, rendered each time and never kept; a preset is kept', async () => {
  const image = (await app.upload(app.key, await jpeg(800, 600), { filename: 'open.jpg' })).body.image;
  const files = fs.readdirSync(app.uploadsDir).length;
  for (let i = 0; i < 3; i++) {
    const res = await app.http.get(`/img/anything/rs:fit:${150 + i}:0/plain/${image.url}@png`);
    expect([res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([200, 'image/png', 'public, max-age=2592000, immutable']);
  }
  await settled();
  expect(await renditions().where('image_name', image.name)).toHaveLength(0);
  expect(fs.readdirSync(app.uploadsDir)).toHaveLength(files);
  expect(await app.strapi.db.connection('image_api_pending_uploads')).toHaveLength(0);

  const preset = await app.http.get(`/img/_/pr:small/plain/${image.url}@webp`);
  expect(preset.status).toBe(200);
  await settled();
  expect(await renditions().where('image_name', image.name)).toHaveLength(1);
  expect(fs.readdirSync(app.uploadsDir)).toHaveLength(files + 1);
});
