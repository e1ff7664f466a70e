import config from '../../server/src/config';
import { configSchema, validateConfig } from '../../server/src/config/schema';

import { OPTION_VARIABLES } from '../../server/src/config/environment';

// The options' variables are read by the validator: these tests start from an environment without them.
const saved = { ...process.env };
beforeEach(() => {
  for (const { variable } of Object.values(OPTION_VARIABLES)) delete process.env[variable];
});
afterAll(() => {
  process.env = saved;
});

/** What Strapi does with an app's plugin config: merge it into the defaults (defaultsDeep), then the validator, on one object. */
function load(appConfig: Record<string, unknown>) {
  const { defaultsDeep } = require('lodash/fp');
  const merged = defaultsDeep(config.default, appConfig);
  config.validator(merged);
  return merged;
}

test('an app that sets nothing gets every default', () => {
  expect(load({})).toEqual({
    publicUrl: null, imgbbPath: '/1/upload', maxBytes: 10_000_000, maxPixels: 100_000_000, maxAnimationFrames: 500, maxAnimationPixels: 20_000_000, allowedTypes: ['jpeg', 'png', 'gif', 'webp', 'bmp', 'heic', 'avif'],
    thumbSize: 160, mediumWidth: 500, jpegQuality: 85, timeZone: 'UTC', fetchTimeoutMs: 15_000, fetchMaxRedirects: 5,
    urlAllowlist: [], corsOrigins: ['*'], minExpiration: 60, maxExpiration: 15_552_000, expirySweepSeconds: 60, sweepAfterMs: 600_000, debrisSweepSeconds: 300,
    maxRequestsInFlight: 16, maxBodyBytesInFlight: 200_000_000, maxRequestsPerAddress: null, bodyTimeoutMs: 120_000, bodyIdleTimeoutMs: 10_000, sendIdleTimeoutMs: 30_000, bodyMinBytesPerSecond: 1024, shutdownTimeoutMs: 25_000, tmpDir: null, heicDecoder: 'auto', heicTimeoutMs: 60_000, folderName: 'API uploads', keyCacheMs: 2000,
    imageConcurrency: null, renderConcurrency: null, sharpThreads: null, heapGrowingPercent: null, blockUnusedDecoders: true, keepExif: false,
    keyHashSecret: null, metrics: null, bootstrapKey: null, rateLimit: '50/minute,500/hour,1000/day', failedAuthLimit: '10/minute',
    trustedProxies: [], redisUrl: null, redisTimeoutMs: 250, redisPrefix: 'image-api',
    cacheMaxAgeSeconds: 2_592_000, hotFileCacheBytes: 64_000_000, transformPath: '/img', transformKey: null, transformSalt: null,
    transformPresets: { thumbnail: 'rs:fit:245:156', small: 'w:500', medium: 'w:750', large: 'w:1000', xlarge: 'w:1920' },
    maxTransformPixels: 16_000_000, transformCacheBytes: 1_000_000_000, maxRendersInFlight: 16, maxRendersPerAddress: null,
    purge: {
      varnish: [], cloudflareZone: null, cloudflareToken: null, cloudflareApi: 'https://api.cloudflare.com/client/v4',
      fastlyService: null, fastlyToken: null, fastlyApi: 'https://api.fastly.com', timeoutMs: 5000,
    },
    moderation: { mode: 'off', threshold: 0.8, blockDistance: 31, warm: true, reportsPerAddress: '5/hour', reportsPerImage: 50 },
  });
});

test('heicDecoder: auto, wasm or an absolute path', () => {
  for (const value of ['auto', 'wasm', '/opt/libheif/bin/heif-convert']) expect(load({ heicDecoder: value }).heicDecoder).toBe(value);
  for (const value of ['native', 'heif-convert', 'bin/heif-convert']) expect(() => load({ heicDecoder: value })).toThrow(/heicDecoder/);
});

describe('transformations (docs/api.md, "Transformations")', () => {
  afterEach(() => {
    for (const name of ['IMAGE_API_TRANSFORM_PATH', 'IMAGE_API_TRANSFORM_KEY', 'IMAGE_API_TRANSFORM_SALT', 'IMAGE_API_TRANSFORM_CACHE_BYTES']) delete process.env[name];
  });

  test('kept results have a byte budget by default (1 GB); IMAGE_API_TRANSFORM_CACHE_BYTES sets another, `off` none', () => {
    expect(load({}).transformCacheBytes).toBe(1_000_000_000);
    expect(load({ transformCacheBytes: null }).transformCacheBytes).toBeNull();
    process.env.IMAGE_API_TRANSFORM_CACHE_BYTES = '5000000';
    expect(load({}).transformCacheBytes).toBe(5_000_000);
    process.env.IMAGE_API_TRANSFORM_CACHE_BYTES = 'off';
    expect(load({}).transformCacheBytes).toBeNull();
    expect(() => load({ transformCacheBytes: 0 })).toThrow(/transformCacheBytes/);
  });

  test('IMAGE_API_TRANSFORM_PATH=off turns them off; a path must be absolute', () => {
    process.env.IMAGE_API_TRANSFORM_PATH = 'off';
    expect(load({}).transformPath).toBeNull();
    expect(() => load({ transformPath: 'img' })).toThrow(/transformPath/);
  });

  test('a path outside /uploads, where the Media Library has one spelling per file', () => {
    for (const path of ['/uploads', '/uploads/img', '/UPLOADS/x']) expect(() => load({ transformPath: path })).toThrow(/transformPath.*outside \/uploads/);
    expect(load({ transformPath: '/uploads-img' }).transformPath).toBe('/uploads-img');
  });

  test('key and salt are hex, and set together or not at all', () => {
    expect(load({ transformKey: 'abcd', transformSalt: '0123' })).toMatchObject({ transformKey: 'abcd', transformSalt: '0123' });
    expect(() => load({ transformKey: 'not hex', transformSalt: '0123' })).toThrow(/transformKey/);
    expect(() => load({ transformKey: 'abcd' })).toThrow(/"transformKey" and "transformSalt" are set together/);
    process.env.IMAGE_API_TRANSFORM_KEY = 'abcd';
    process.env.IMAGE_API_TRANSFORM_SALT = 'ef01';
    expect(load({})).toMatchObject({ transformKey: 'abcd', transformSalt: 'ef01' });
  });

  test('presets replace the defaults; their names are URL-safe', () => {
    expect(load({ transformPresets: { card: 'rs:fill:400:300' } }).transformPresets).toEqual({ card: 'rs:fill:400:300' });
    expect(() => load({ transformPresets: { 'a/b': 'w:1' } })).toThrow(/transformPresets/);
  });
});

test('an option given as undefined (an unset environment variable) gets its default', () => {
  expect(load({ rateLimit: undefined, redisUrl: undefined, imageConcurrency: null })).toMatchObject({
    rateLimit: '50/minute,500/hour,1000/day', redisUrl: null, imageConcurrency: null,
  });
});

test('an empty value in the app\'s config is not set, except for a rate limit, where it reads as off', () => {
  expect(load({ maxBytes: '', keyHashSecret: '', publicUrl: '', sweepAfterMs: '', rateLimit: '' })).toMatchObject({
    maxBytes: 10_000_000, keyHashSecret: null, publicUrl: null, sweepAfterMs: 600_000, rateLimit: '',
  });
});

test('a variable set to nothing is not set, the rate limits\' too (their defaults stay); off turns them off', () => {
  Object.assign(process.env, { IMAGE_API_RATE_LIMIT: '', IMAGE_API_FAILED_AUTH_LIMIT: ' ', IMAGE_API_MAX_REQUESTS_IN_FLIGHT: '' });
  expect(load({})).toMatchObject({ rateLimit: '50/minute,500/hour,1000/day', failedAuthLimit: '10/minute', maxRequestsInFlight: 16 });
  Object.assign(process.env, { IMAGE_API_RATE_LIMIT: 'off', IMAGE_API_FAILED_AUTH_LIMIT: 'off' });
  expect(load({})).toMatchObject({ rateLimit: 'off', failedAuthLimit: 'off' });
});

test('the options without a variable are the ones schema.ts\'s header names (set in the config only)', () => {
  // An object option's variables are its keys' (`purge.varnish`).
  const withoutVariable = Object.keys(configSchema.describe().keys).filter((option) => !Object.keys(OPTION_VARIABLES).some((name) => name === option || name.startsWith(`${option}.`)));
  expect(withoutVariable.sort()).toEqual([
    'allowedTypes', 'blockUnusedDecoders', 'fetchMaxRedirects', 'fetchTimeoutMs', 'folderName', 'jpegQuality', 'keepExif',
    'keyCacheMs', 'maxBytes', 'maxPixels', 'mediumWidth', 'thumbSize', 'transformPresets',
  ]);
});

test('values are kept, numbers given as text are read as numbers', () => {
  expect(load({ maxBytes: '2000000', publicUrl: 'https://img.example', urlAllowlist: ['10.0.0.0/8', 'images.internal'] })).toMatchObject({
    maxBytes: 2_000_000, publicUrl: 'https://img.example', urlAllowlist: ['10.0.0.0/8', 'images.internal'],
  });
});

test('what the app leaves unset comes from the IMAGE_API_* variables; what it sets wins', () => {
  Object.assign(process.env, {
    PUBLIC_URL: 'https://img.example.com',
    IMAGE_API_RATE_LIMIT: '10/minute',
    IMAGE_API_URL_ALLOWLIST: '10.0.0.0/8, images.internal',
    IMAGE_API_MAX_REQUESTS_IN_FLIGHT: '8',
    IMAGE_API_MAX_ANIMATION_FRAMES: '100',
    IMAGE_API_MAX_ANIMATION_PIXELS: '5000000',
    IMAGE_API_IMGBB_PATH: 'off',
    IMAGE_API_TIME_ZONE: '',
  });
  const loaded = load({ rateLimit: '5/minute' });
  expect(loaded).toMatchObject({
    publicUrl: 'https://img.example.com',
    rateLimit: '5/minute',
    maxRequestsInFlight: 8,
    maxAnimationFrames: 100,
    maxAnimationPixels: 5_000_000,
    imgbbPath: null,
    timeZone: 'UTC',
  });
  expect(loaded.urlAllowlist).toEqual(['10.0.0.0/8', 'images.internal']);
  process.env.IMAGE_API_MAX_REQUESTS_IN_FLIGHT = 'many';
  expect(() => load({})).toThrow(/maxRequestsInFlight/);
});

test('imgbbPath: another absolute path, or null for none', () => {
  expect(load({ imgbbPath: '/imgbb/1/upload' }).imgbbPath).toBe('/imgbb/1/upload');
  expect(load({ imgbbPath: null }).imgbbPath).toBeNull();
});

test('a list option replaces the default list (Strapi\'s merge would pad it with the defaults)', () => {
  const loaded = load({ allowedTypes: ['png'], corsOrigins: ['https://a.example'] });
  expect(loaded.allowedTypes).toEqual(['png']);
  expect(loaded.corsOrigins).toEqual(['https://a.example']);
});

test.each([
  ['maxBytes', 0], ['maxBytes', '10mb'], ['maxPixels', -1], ['thumbSize', 1.5], ['fetchMaxRedirects', -1], ['jpegQuality', 101],
  ['allowedTypes', ['png', 'svg']], ['allowedTypes', []], ['timeZone', 'Mars/Olympus'], ['publicUrl', 'ftp://x'], ['publicUrl', 'not a url'],
  ['urlAllowlist', '127.0.0.1'], ['corsOrigins', [1]], ['folderName', ' '],
  ['heapGrowingPercent', 0], ['heapGrowingPercent', 301], ['heapGrowingPercent', 1.5], ['keyCacheMs', 5001],
  ['rateLimit', '0/minute'], ['rateLimit', '5/week'], ['failedAuthLimit', '0/second'], ['urlAllowlist', ['10.0.0.0/33']], ['urlAllowlist', ['host/8']],
  ['keepExif', 'yes'], ['tmpDir', 'relative/path'], ['redisUrl', 'http://127.0.0.1:6379'], ['imageConcurrency', 0],
  ['minExpiration', 0], ['expirySweepSeconds', 0], ['imgbbPath', '1/upload'], ['imgbbPath', '/1/upload/'], ['imgbbPath', '/a b'],
])('refuses %s = %j, naming the option', (option, value) => {
  expect(() => validateConfig({ [option]: value })).toThrow(new RegExp(`^image-api config: "${option}`));
});

test('the grammars say what they expect', () => {
  expect(() => validateConfig({ rateLimit: '0/minute' })).toThrow(/expected windows like 50\/minute/);
  expect(() => validateConfig({ urlAllowlist: ['10.0.0.0/33'] })).toThrow(/"10\.0\.0\.0\/33": not a CIDR range/);
});

test('maxExpiration may not be below minExpiration', () => {
  expect(() => validateConfig({ minExpiration: 600, maxExpiration: 60 })).toThrow(/^image-api config: "maxExpiration" must be greater than or equal to ref:minExpiration/);
});

test('an option that does not exist is refused (a typo would otherwise be ignored)', () => {
  expect(() => validateConfig({ maxByte: 5 })).toThrow(/"maxByte" is not allowed/);
});

test('trusted proxies: addresses, ranges and names are kept, empty entries dropped; anything else refused', () => {
  expect(load({ trustedProxies: ['127.0.0.1', '10.0.0.0/8', 'loopback', ''] }).trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', 'loopback']);
  expect(() => load({ trustedProxies: ['nginx.internal'] })).toThrow(/trustedProxies/);
});

test('sweepAfterMs cannot be set below a minute, but in test suites', () => {
  const saved = process.env.NODE_ENV;
  try {
    process.env.NODE_ENV = 'production';
    expect(() => load({ sweepAfterMs: 0 })).toThrow(/sweepAfterMs.*at least 60000/);
    expect(() => load({ sweepAfterMs: '59999' })).toThrow(/sweepAfterMs/);
    expect(load({ sweepAfterMs: '60000' }).sweepAfterMs).toBe(60_000);
    process.env.NODE_ENV = 'test';
    expect(load({ sweepAfterMs: 0 }).sweepAfterMs).toBe(0);
  } finally {
    process.env.NODE_ENV = saved;
  }
});

test('purge: its keys from the IMAGE_API_PURGE_* variables, beside what the app sets; credentials in pairs', () => {
  const variables = {
    IMAGE_API_PURGE_VARNISH: 'http://10.0.0.5:6081, http://10.0.0.6:6081',
    IMAGE_API_PURGE_CLOUDFLARE_ZONE: '023e105f4ecef8ad9ca31a8372d0c353',
    IMAGE_API_PURGE_CLOUDFLARE_TOKEN: 'cf-token',
    IMAGE_API_PURGE_TIMEOUT_MS: '2000',
  };
  Object.assign(process.env, variables);
  try {
    expect(load({}).purge).toEqual({
      varnish: ['http://10.0.0.5:6081', 'http://10.0.0.6:6081'], cloudflareZone: '023e105f4ecef8ad9ca31a8372d0c353', cloudflareToken: 'cf-token',
      cloudflareApi: 'https://api.cloudflare.com/client/v4', fastlyService: null, fastlyToken: null, fastlyApi: 'https://api.fastly.com', timeoutMs: 2000,
    });
    // What the app's config sets wins, key by key; the variables fill the rest.
    expect(load({ purge: { varnish: ['http://cache:6081'] } }).purge).toMatchObject({ varnish: ['http://cache:6081'], cloudflareToken: 'cf-token', timeoutMs: 2000 });
    process.env.IMAGE_API_PURGE_CLOUDFLARE_TOKEN = '';
    expect(() => load({})).toThrow(/"purge.cloudflareZone" and "purge.cloudflareToken" are set together, or neither/);
    process.env.IMAGE_API_PURGE_CLOUDFLARE_ZONE = '';
    expect(() => load({ purge: { fastlyService: 'SU1Z0isxPaozGVKXdv0eY' } })).toThrow(/"purge.fastlyService" and "purge.fastlyToken"/);
    expect(() => load({ purge: { varnish: ['ftp://cache'] } })).toThrow(/purge.varnish/);
  } finally {
    for (const name of Object.keys(variables)) delete process.env[name];
  }
});

test('metrics: the token from IMAGE_API_METRICS_TOKEN, at least 16 characters; empty means off', () => {
  const token = 'a'.repeat(24);
  process.env.IMAGE_API_METRICS_TOKEN = token;
  try {
    expect(load({}).metrics).toBe(token);
    process.env.IMAGE_API_METRICS_TOKEN = '';
    expect(load({}).metrics).toBeNull();
    expect(() => load({ metrics: 'short' })).toThrow(/metrics/);
  } finally {
    delete process.env.IMAGE_API_METRICS_TOKEN;
  }
});
