/** What a viewer's report may say (moderation/report-input.ts): a reason of the list, an optional text of at most 1,000 characters. */
import { REPORT_BODY_BYTES, reportInputOf } from '../../server/src/moderation/report-input';
import { refusal } from '../refusal';
import { reporterOf } from '../../server/src/moderation/reports';

test('a reason of the list, a text trimmed; no text, or only spaces, is null; other fields are ignored', () => {
  expect(reportInputOf({ reason: 'spam', text: '  buy now  ', key: 'x' })).toEqual({ reason: 'spam', text: 'buy now' });
  expect(reportInputOf({ reason: 'other' })).toEqual({ reason: 'other', text: null });
  expect(reportInputOf({ reason: 'hate', text: '   ' })).toEqual({ reason: 'hate', text: null });
});

test.each([[{}], [{ reason: '' }], [{ reason: 'Spam' }], [{ reason: 'nudity' }], [{ reason: ['spam'] }], [{ reason: { a: 1 } }]])('%j: 400, the list named', async (fields) => {
  expect(await refusal(() => reportInputOf(fields))).toEqual({ status: 400, code: 400, message: 'Invalid report: reason must be one of sexual, violence, hate, illegal, spam, copyright, other' });
});

test('1,000 characters of text are taken, 1,001 are 400; a text that is not a string is 400', async () => {
  expect(reportInputOf({ reason: 'spam', text: 'é'.repeat(1000) }).text).toHaveLength(1000);
  expect(await refusal(() => reportInputOf({ reason: 'spam', text: 'é'.repeat(1001) }))).toEqual({ status: 400, code: 400, message: 'Invalid report: text is at most 1000 characters' });
  expect(await refusal(() => reportInputOf({ reason: 'spam', text: ['a'] }))).toEqual({ status: 400, code: 400, message: 'Invalid report: text is one string of at most 1000 characters' });
});

test('the longest report fits the body bound, as a form encodes it and as JSON escapes it', () => {
  const text = '語'.repeat(1000);
  expect(Buffer.byteLength(new URLSearchParams({ reason: 'copyright', text }).toString())).toBeLessThanOrEqual(REPORT_BODY_BYTES);
  expect(Buffer.byteLength(JSON.stringify({ reason: 'copyright', text: '\u0001'.repeat(1000) }))).toBeLessThanOrEqual(REPORT_BODY_BYTES);
  const pairs = '😀'.repeat(500);
  expect(Buffer.byteLength(new URLSearchParams({ reason: 'copyright', text: pairs }).toString())).toBeLessThanOrEqual(REPORT_BODY_BYTES);
});

describe('who a reporter is counted as (moderation/reports.ts, reporterOf)', () => {
  test('an IPv4 address as it is; an IPv6 address by its /64; an IPv4-mapped one as IPv4', () => {
    expect(reporterOf('203.0.113.7')).toBe('203.0.113.7');
    expect(reporterOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(reporterOf('2001:db8:1:2::1')).toBe(reporterOf('2001:0db8:0001:0002:ffff::9'));
    expect(reporterOf('2001:db8:1:3::1')).not.toBe(reporterOf('2001:db8:1:2::1'));
    expect(reporterOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(reporterOf('not an address')).toBe('not an address');
  });
});
