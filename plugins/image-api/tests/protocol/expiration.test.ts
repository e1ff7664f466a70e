import { expirationSeconds } from '../../server/src/protocol/expiration';
import { refusal } from '../refusal';

const limits = { minExpiration: 60, maxExpiration: 15_552_000 };
const now = new Date('2026-01-31T12:00:00Z');

test.each([
  ['600', 600], [' 86400 ', 86_400], ['60', 60], ['15552000', 15_552_000],
  ['PT10M', 600], ['PT1H30M', 5400], ['P1D', 86_400], ['P1W', 604_800], ['P1DT12H', 129_600], ['PT90S', 90], ['P0.5D', 43_200],
])('%j is %d seconds', (text, seconds) => {
  expect(expirationSeconds(text, limits, now)).toBe(seconds);
});

test('a calendar duration counts from now: one month from 31 January is 28 days', () => {
  expect(expirationSeconds('P1M', limits, now)).toBe(28 * 86_400);
  expect(expirationSeconds('P1M', limits, new Date('2026-03-31T12:00:00Z'))).toBe(30 * 86_400);
});

test.each(['59', '15552001', 'P1Y', 'P181D', 'PT59S', '-600', 'P-1D', 'P1DT-1H', 'PT2H-30M', 'PT', 'P', 'abc', '10m', 'pt10m', '1.5', '', '1e3'])(
  '%j: 400/150, with the range in the message',
  async (text) => {
    expect(await refusal(() => expirationSeconds(text, limits, now))).toEqual({
      status: 400,
      code: 150,
      message: 'Invalid expiration: seconds or an ISO 8601 duration (PT10M, P1D), from 60 to 15552000 seconds',
    });
  }
);
