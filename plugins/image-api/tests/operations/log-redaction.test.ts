import qs from 'qs';
import { redactUrl } from '../../server/src/operations/log-redaction';

test.each([
  ['/api/1/upload?key=img_abc&format=txt', '/api/1/upload?key=[REDACTED]&format=txt'],
  ['/api/1/upload?format=txt&key=img_abc', '/api/1/upload?format=txt&key=[REDACTED]'],
  ['/api/1/upload?KEY=img_abc&apikey=x&api_key=y', '/api/1/upload?KEY=[REDACTED]&apikey=[REDACTED]&api_key=[REDACTED]'],
  ['/api/1/upload?monkey=1&key=', '/api/1/upload?monkey=1&key=[REDACTED]'],
  ['/api/1/upload?source=http://x/?key=inner', '/api/1/upload?source=http://x/?key=[REDACTED]'],
  // Spellings the server reads as `key` (issue 23, item 6).
  ['/api/1/upload?%6Bey=img_abc', '/api/1/upload?%6Bey=[REDACTED]'],
  ['/api/1/upload?key[]=img_abc', '/api/1/upload?key[]=[REDACTED]'],
  ['/api/1/upload?key%5B%5D=img_abc&format=txt', '/api/1/upload?key%5B%5D=[REDACTED]&format=txt'],
  ['/api/1/upload?key[0]=img_abc', '/api/1/upload?key[0]=[REDACTED]'],
  ['/api/1/upload?%4B%45%59%5B0%5D=img_abc', '/api/1/upload?%4B%45%59%5B0%5D=[REDACTED]'],
  // A delete link's secret.
  ['/image/abc/delete/S3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3', '/image/abc/delete/[REDACTED]'],
  ['/image/abc/delete/S3cr3t?format=json', '/image/abc/delete/[REDACTED]?format=json'],
  ['/image/abc', '/image/abc'],
])('%s', (url, logged) => {
  expect(redactUrl(url)).toBe(logged);
});

test('every spelling qs reads as `key` is redacted: the redacted query carries no key value', () => {
  for (const name of ['key', '%6Bey', 'k%65y', 'key[]', 'key%5B%5D', 'key[0]', 'key[5]', 'key%5b0%5d', 'KEY']) {
    const query = `format=txt&${name}=img_secret`;
    // What the server reads from it...
    const parsed = qs.parse(query, { depth: 20, arrayLimit: 100, strictNullHandling: true }) as Record<string, unknown>;
    const read = parsed.key ?? parsed.KEY;
    expect(JSON.stringify(read)).toContain('img_secret');
    // ...is gone from what is logged.
    expect(redactUrl(`/api/1/upload?${query}`)).not.toContain('img_secret');
  }
});
