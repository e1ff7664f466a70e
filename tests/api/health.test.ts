import { startApp, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

test('GET /_health answers 204', async () => {
  const res = await app.http.get('/_health');
  expect(res.status).toBe(204);
  expect(res.text).toBe('');
});

test('the plugin and its content types are loaded', () => {
  expect(app.strapi.plugin('image-api')).toBeDefined();
  expect(app.strapi.contentType('plugin::image-api.image')).toBeDefined();
  expect(app.strapi.contentType('plugin::image-api.api-key')).toBeDefined();
});

test('the database is the one the run asked for', () => {
  expect(app.strapi.config.get('database.connection.client')).toBe(process.env.TEST_DB || 'sqlite');
  expect(app.db.client).toBe(process.env.TEST_DB || 'sqlite');
});
