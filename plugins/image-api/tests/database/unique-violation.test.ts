import { isUniqueViolation } from '../../server/src/database/unique-violation';

test('unique violations are recognised on each database', () => {
  expect(isUniqueViolation(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('Duplicate entry'), { errno: 1062 }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('wrapped'), { cause: { code: '23505' } }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error('deadlock'), { code: '40P01' }))).toBe(false);
  expect(isUniqueViolation(null)).toBe(false);
});
