import config from '../../server/src/config';

const valid = () => ({ ...config.default, allowedTypes: [...config.default.allowedTypes] });

test('the defaults are valid', () => {
  expect(() => config.validator(valid())).not.toThrow();
  expect(config.default).toMatchObject({ maxBytes: 10_000_000, maxPixels: 100_000_000, thumbSize: 160, mediumWidth: 500, fetchTimeoutMs: 15_000, fetchMaxRedirects: 5, corsOrigins: ['*'] });
});

test.each([
  ['maxBytes', 0], ['maxBytes', '10mb'], ['maxPixels', -1], ['thumbSize', 1.5], ['fetchMaxRedirects', -1], ['jpegQuality', 101],
  ['allowedTypes', ['png', 'svg']], ['allowedTypes', []], ['timeZone', 'Mars/Olympus'], ['publicUrl', 'ftp://x'], ['publicUrl', 'not a url'],
  ['urlAllowlist', '127.0.0.1'], ['corsOrigins', [1]], ['folderName', ' '], ['keyHashSecret', ''],
  ['heapGrowingPercent', 0], ['heapGrowingPercent', 301], ['heapGrowingPercent', 1.5],
])('refuses %s = %j, naming the option', (option, value) => {
  expect(() => config.validator({ ...valid(), [option]: value } as never)).toThrow(new RegExp(`"${option}"`));
});
