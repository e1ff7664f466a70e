/** When an immutable answer is a 304 (delivery/conditional-request.ts): the origin's rules of RFC 9110 §13.2.2. */
import { isNotModified } from '../../server/src/delivery/conditional-request';

const item = { etag: '"5f3a-1c2"', lastModified: new Date('2025-03-01T10:00:00.900Z') };
const notModified = (headers: Record<string, string>) => isNotModified(headers, item);

test('If-None-Match decides whatever Cache-Control says; weak comparison; * matches; a quoted comma is part of a tag', () => {
  for (const cacheControl of [undefined, 'no-cache', 'max-age=0', 'no-store']) {
    const extra: Record<string, string> = cacheControl ? { 'cache-control': cacheControl, pragma: 'no-cache' } : {};
    expect(notModified({ 'if-none-match': '"5f3a-1c2"', ...extra })).toBe(true);
  }
  expect(notModified({ 'if-none-match': 'W/"5f3a-1c2"' })).toBe(true);
  expect(notModified({ 'if-none-match': '"a,b", "5f3a-1c2"' })).toBe(true);
  expect(notModified({ 'if-none-match': '*' })).toBe(true);
  expect(notModified({ 'if-none-match': '"5f3a-1c3"' })).toBe(false);
  expect(notModified({ 'if-none-match': '"5f3a-1c2' })).toBe(false);
  expect(notModified({ 'if-none-match': '5f3a-1c2' })).toBe(false);
});

test('If-Modified-Since counts only without If-None-Match; to the second; an invalid date is ignored', () => {
  expect(notModified({ 'if-modified-since': 'Sat, 01 Mar 2025 10:00:00 GMT', 'cache-control': 'no-cache' })).toBe(true);
  expect(notModified({ 'if-modified-since': 'Sat, 01 Mar 2025 11:00:00 GMT' })).toBe(true);
  expect(notModified({ 'if-modified-since': 'Sat, 01 Mar 2025 09:59:59 GMT' })).toBe(false);
  expect(notModified({ 'if-modified-since': 'yesterday' })).toBe(false);
  expect(notModified({ 'if-none-match': '"other"', 'if-modified-since': 'Sat, 01 Mar 2025 11:00:00 GMT' })).toBe(false);
  expect(notModified({})).toBe(false);
});
