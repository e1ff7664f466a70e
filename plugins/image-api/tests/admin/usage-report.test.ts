/** The usage page's window of days: UTC days, oldest first, ending today, across month ends. */
import { lastDays } from '../../server/src/admin/usage-report';

test('the last n UTC days end with today and cross a month end', () => {
  expect(lastDays(3, new Date('2026-12-01T00:30:00Z'))).toEqual(['2026-11-29', '2026-11-30', '2026-12-01']);
  expect(lastDays(30, new Date('2026-11-24T23:59:59Z'))).toHaveLength(30);
  expect(lastDays(30, new Date('2026-11-24T23:59:59Z'))[0]).toBe('2026-10-26');
});
