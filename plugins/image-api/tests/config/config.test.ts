import config from '../../server/src/config';

/** The config Strapi hands the validator when the app sets nothing. */
const valid = () => {
  const merged = { ...config.default };
  config.validator(merged);
  return merged;
};

test('the defaults are valid', () => {
  expect(valid()).toMatchObject({
    maxBytes: 10_000_000, maxPixels: 100_000_000, thumbSize: 160, mediumWidth: 500, fetchTimeoutMs: 15_000, fetchMaxRedirects: 5,
    corsOrigins: ['*'], allowedTypes: ['jpeg', 'png', 'gif', 'webp', 'bmp'], urlAllowlist: [],
  });
});

test.each([
  ['maxBytes', 0], ['maxBytes', '10mb'], ['maxPixels', -1], ['thumbSize', 1.5], ['fetchMaxRedirects', -1], ['jpegQuality', 101],
  ['allowedTypes', ['png', 'svg']], ['allowedTypes', []], ['timeZone', 'Mars/Olympus'], ['publicUrl', 'ftp://x'], ['publicUrl', 'not a url'],
  ['urlAllowlist', '127.0.0.1'], ['corsOrigins', [1]], ['folderName', ' '], ['keyHashSecret', ''],
  ['heapGrowingPercent', 0], ['heapGrowingPercent', 301], ['heapGrowingPercent', 1.5],
  ['rateLimit', '0/minute'], ['rateLimit', '5/week'], ['failedAuthLimit', '0/second'], ['urlAllowlist', ['10.0.0.0/33']], ['urlAllowlist', ['host/8']],
])('refuses %s = %j, naming the option', (option, value) => {
  expect(() => config.validator({ ...valid(), [option]: value } as never)).toThrow(new RegExp(`"${option}"`));
});

test('a list option replaces the default list, as Strapi merges a user config into the defaults', () => {
  // Strapi's plugin loader: fp.defaultsDeep(defaults, userConfig), then the validator, on one object.
  const { defaultsDeep } = require('lodash/fp');
  const merged = defaultsDeep(config.default, { allowedTypes: ['png'], corsOrigins: ['https://a.example'] });
  config.validator(merged);
  expect(merged.allowedTypes).toEqual(['png']);
  expect(merged.corsOrigins).toEqual(['https://a.example']);
});
