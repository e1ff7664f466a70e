/**
 * Configuration is checked and applied when the app boots: a value the plugin could not use later
 * stops the boot with a message naming the option, instead of failing every request that needs it.
 */
import sharp from 'sharp';
import { startApp, type TestApp } from '../../helpers/app';

describe('a value the plugin cannot use stops the boot, naming the option', () => {
  test.each([
    ['IMAGE_API_RATE_LIMIT', '0/minute', /rateLimit/],
    ['IMAGE_API_RATE_LIMIT', '50/fortnight', /rateLimit/],
    ['IMAGE_API_FAILED_AUTH_LIMIT', '0/second', /failedAuthLimit/],
    ['IMAGE_API_URL_ALLOWLIST', '127.0.0.1,10.0.0.0/33', /urlAllowlist.*10\.0\.0\.0\/33/],
    ['IMAGE_API_URL_ALLOWLIST', 'images.internal/8', /urlAllowlist.*images\.internal\/8/],
    ['IMAGE_API_TRUSTED_PROXIES', '127.0.0.1,nginx.internal', /trustedProxies/],
  ])('%s=%s', async (name, value, message) => {
    await expect(startApp({ [name]: value })).rejects.toThrow(message);
  });
});

test('production without PUBLIC_URL does not boot, and says why', async () => {
  await expect(startApp({ NODE_ENV: 'production', PUBLIC_URL: '' })).rejects.toThrow(
    /PUBLIC_URL must be set in production: the absolute base URL clients reach the API at/
  );
});

describe('applied at boot', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Whatever an earlier test file of this process left in sharp's process-wide settings.
    sharp.concurrency(0);
    sharp.cache(true);
    app = await startApp({ IMAGE_API_SHARP_THREADS: '3', IMAGE_API_IMAGE_CONCURRENCY: '1' });
  });
  afterAll(async () => {
    await app?.stop();
    sharp.concurrency(0);
    sharp.cache(true);
  });

  test("sharp's threads and cache are set before the first upload", () => {
    expect(sharp.concurrency()).toBe(3);
    expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, items: { max: 0 } });
  });
});
