import { isUniqueViolation, isValidIdempotencyKey } from '../../../server/src/services/storage/idempotency';

test('an Idempotency-Key is 1 to 255 visible ASCII characters', () => {
  for (const key of ['a', 'upload-2026-11-23T10:00:00Z', '0f8fad5b-d9cb-469f-a165-70867728950e', 'x'.repeat(255), '!~']) {
    expect(isValidIdempotencyKey(key)).toBe(true);
  }
  for (const key of ['', 'x'.repeat(256), 'has space', 'tab\there', 'é', 'line\nbreak']) {
    expect(isValidIdempotencyKey(key)).toBe(false);
  }
});

test('unique violations are recognised on each database', () => {
  expect(isUniqueViolation(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('Duplicate entry'), { errno: 1062 }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('wrapped'), { cause: { code: '23505' } }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('deadlock'), { code: '40P01' }))).toBe(false);
  expect(isUniqueViolation(null)).toBe(false);
});
