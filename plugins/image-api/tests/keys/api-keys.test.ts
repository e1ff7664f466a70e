import { displayPrefix, generateKey, hashKey, isExpired, sameDigest } from '../../server/src/keys/api-keys';

test('keys carry the img_ prefix and 32 random characters', () => {
  const keys = Array.from({ length: 200 }, generateKey);
  for (const key of keys) expect(key).toMatch(/^img_[A-Za-z0-9]{32}$/);
  expect(new Set(keys).size).toBe(200);
});

test('hashKey is an HMAC-SHA256: keyed, deterministic, hex', () => {
  const key = 'img_abcdefghijklmnopqrstuvwxyz012345';
  expect(hashKey(key, 'secret-one')).toBe(hashKey(key, 'secret-one'));
  expect(hashKey(key, 'secret-one')).not.toBe(hashKey(key, 'secret-two'));
  expect(hashKey(key, 'secret-one')).toMatch(/^[0-9a-f]{64}$/);
  // RFC 4231-style check against Node's own HMAC, so the construction is what docs/api-keys.md says.
  expect(hashKey('what do ya want for nothing?', 'Jefe')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
});

test('sameDigest compares in constant time and refuses different lengths', () => {
  const a = hashKey('img_a', 's');
  expect(sameDigest(a, a)).toBe(true);
  expect(sameDigest(a, hashKey('img_b', 's'))).toBe(false);
  expect(sameDigest(a, a.slice(0, 62))).toBe(false);
});

test('displayPrefix keeps the prefix and four characters', () => {
  expect(displayPrefix('img_AbCdEfGh')).toBe('img_AbCd');
});

describe('isExpired', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  test.each([
    [null, false], [undefined, false], ['2026-06-01T11:59:59Z', true], ['2026-06-01T12:00:00Z', true], ['2026-06-01T12:00:01Z', false],
  ])('%s → %s', (expiresAt, expired) => {
    expect(isExpired(expiresAt as string | null, now)).toBe(expired);
  });
});
