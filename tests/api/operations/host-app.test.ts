/** The host app's own small things an admin meets on every page load. */
import { startApp, type TestApp } from '../../helpers/app';
import { startChildApp } from '../../helpers/child-app';
import { createScratchDb } from '../../../tools/support/app/scratch-db';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app?.stop();
});

test('GET /favicon.ico answers the app\'s icon (it was a 500 with a stack trace on every admin page load)', async () => {
  const res = await app.http.get('/favicon.ico').buffer(true);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^image\//);
  expect(Number(res.headers['content-length'])).toBeGreaterThan(100);
});

test("Strapi's CORS answers the app's own origin only (its default echoed any origin with credentials); the image API's routes keep their own", async () => {
  const preflight = (path: string, origin: string) =>
    app.http.options(path).set('Origin', origin).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type');
  for (const path of ['/admin/access-token', '/admin/login', '/content-manager/collection-types/plugin::image-api.api-key', '/api/upload']) {
    const foreign = await preflight(path, 'https://evil.example');
    expect([path, foreign.headers['access-control-allow-origin'], foreign.headers['access-control-allow-credentials']]).toEqual([path, undefined, undefined]);
    const own = await preflight(path, 'http://img.test:1337');
    expect([path, own.headers['access-control-allow-origin'], own.headers['access-control-allow-credentials']]).toEqual([path, 'http://img.test:1337', 'true']);
  }
  // A simple cross-origin request: the answer goes, but no browser hands it to the foreign page.
  const login = await app.http.post('/admin/login').set('Origin', 'https://evil.example').send({ email: 'nobody@x.test', password: 'x' });
  expect(login.headers['access-control-allow-origin']).toBeUndefined();
  const upload = await preflight('/api/1/upload', 'https://evil.example');
  expect(upload.headers['access-control-allow-origin']).toBe('*');
});

test('strangers cannot sign up site users (users-permissions opens sign-ups by default, limited per e-mail only): closed at the first boot, and an admin who opens them is not overruled at the next', async () => {
  const countUsers = () => app.strapi.db.query('plugin::users-permissions.user').count();
  const before = await countUsers();
  const signUp = (i: number) => app.http.post('/api/auth/local/register').send({ username: `visitor${i}`, email: `visitor${i}@example.test`, password: 'A-long-enough-password-1' });
  for (const i of [1, 2, 3]) {
    const res = await signUp(i);
    expect([res.status, res.body.error?.message]).toEqual([400, 'Register action is currently disabled']);
  }
  expect(await countUsers()).toBe(before);

  const advanced = app.strapi.store({ type: 'plugin', name: 'users-permissions', key: 'advanced' });
  const settings = (await advanced.get({})) as Record<string, unknown>;
  await advanced.set({ value: { ...settings, allow_register: true } });
  // The app's bootstrap again, as at the next boot: the admin's choice stands.
  await (await import('../../../src/index')).default.bootstrap({ strapi: app.strapi });
  expect(((await advanced.get({})) as Record<string, unknown>).allow_register).toBe(true);
  expect((await signUp(4)).status).toBe(200);
  expect(await countUsers()).toBe(before + 1);
  await advanced.set({ value: { ...settings, allow_register: false } });
});

test('a boot without IMAGE_API_KEY_SECRET says so, and what it means; with it, nothing', async () => {
  const boot = async (secret: string | undefined) => {
    const db = await createScratchDb();
    const child = await startChildApp({ ...process.env, ...db.env, LOG_LEVEL: 'warn', IMAGE_API_KEY_SECRET: secret });
    const output = child.output();
    await child.stop();
    await db.drop();
    return output;
  };
  expect(await boot('')).toContain('IMAGE_API_KEY_SECRET (keyHashSecret) is not set, so API keys are hashed with API_TOKEN_SALT');
  expect(await boot('a-secret-of-our-own')).not.toContain('IMAGE_API_KEY_SECRET');
}, 120_000);

test('in development, the boot log says where the API and its docs are and how to issue a key; in production it does not', async () => {
  const boot = async (environment: string) => {
    const db = await createScratchDb();
    const child = await startChildApp({ ...process.env, ...db.env, LOG_LEVEL: 'info', NODE_ENV: environment, PUBLIC_URL: 'http://localhost:1337' });
    const output = child.output();
    await child.stop();
    await db.drop();
    return output;
  };
  const development = await boot('development');
  expect(development).toContain("image-api: uploads at http://localhost:1337/api/1/upload, the API's docs at http://localhost:1337/api/1/docs.");
  expect(development).toContain('npx strapi-image-api keys create --name "My laptop"');
  expect(await boot('production')).not.toContain('npx strapi-image-api keys create');
}, 120_000);
