/**
 * What the usage tallies count: a file entry's bytes from the kilobytes the Media Library records
 * (the same figure at upload and at deletion, so storage used returns to zero), under UTC days.
 */
import { dayOf, storedBytes } from '../../server/src/storage/usage-tally';

test("a file entry's bytes: the original's and every format's kilobytes, as recorded", () => {
  expect(storedBytes({ size: 60.25, formats: { thumbnail: { size: 4.1 }, medium: { size: '20.57' } } })).toBe(60250 + 4100 + 20570);
  expect(storedBytes({ size: 1.5 })).toBe(1500);
  expect(storedBytes({ size: 1.5, formats: null })).toBe(1500);
});

test('an entry without sizes, or no entry, counts nothing rather than NaN', () => {
  expect(storedBytes(null)).toBe(0);
  expect(storedBytes({ size: null, formats: { thumbnail: {} } })).toBe(0);
  expect(storedBytes({ size: 'n/a' })).toBe(0);
});

test('events are filed under their UTC day', () => {
  expect(dayOf(new Date('2026-11-24T23:59:59.999Z'))).toBe('2026-11-24');
  expect(dayOf(new Date('2026-11-25T00:00:00+01:00'))).toBe('2026-11-24');
});
