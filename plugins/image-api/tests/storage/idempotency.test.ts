import { isValidIdempotencyKey } from '../../server/src/storage/idempotency';

test('an Idempotency-Key is 1 to 255 visible ASCII characters', () => {
  for (const key of ['a', 'upload-2026-11-23T10:00:00Z', '0f8fad5b-d9cb-469f-a165-70867728950e', 'x'.repeat(255), '!~']) {
    expect(isValidIdempotencyKey(key)).toBe(true);
  }
  for (const key of ['', 'x'.repeat(256), 'has space', 'tab\there', 'é', 'line\nbreak']) {
    expect(isValidIdempotencyKey(key)).toBe(false);
  }
});
