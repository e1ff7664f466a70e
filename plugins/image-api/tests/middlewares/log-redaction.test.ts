import { redactKeys } from '../../server/src/middlewares/log-redaction';

test.each([
  ['/api/1/upload?key=img_abc&format=txt', '/api/1/upload?key=[REDACTED]&format=txt'],
  ['/api/1/upload?format=txt&key=img_abc', '/api/1/upload?format=txt&key=[REDACTED]'],
  ['/api/1/upload?KEY=img_abc&apikey=x&api_key=y', '/api/1/upload?KEY=[REDACTED]&apikey=[REDACTED]&api_key=[REDACTED]'],
  ['/api/1/upload?monkey=1&key=', '/api/1/upload?monkey=1&key=[REDACTED]'],
  ['/api/1/upload?source=http://x/?key=inner', '/api/1/upload?source=http://x/?key=[REDACTED]'],
  ['/image/abc', '/image/abc'],
])('%s', (url, logged) => {
  expect(redactKeys(url)).toBe(logged);
});
