import { parseRateLimit } from '../../server/src/config/rate-limit';

test('parses windows', () => {
  expect(parseRateLimit('50/minute,500/hour,1000/day')).toEqual([
    { points: 50, unit: 'minute', seconds: 60 },
    { points: 500, unit: 'hour', seconds: 3600 },
    { points: 1000, unit: 'day', seconds: 86_400 },
  ]);
  expect(parseRateLimit(' 3 / second ')).toEqual([{ points: 3, unit: 'second', seconds: 1 }]);
});

test.each(['off', 'OFF', '', null, undefined])('%s means no limit', (spec) => {
  expect(parseRateLimit(spec as string)).toBeNull();
});

test.each(['50', '50/week', '0/minute', 'minute/50', '50/minute;10/hour', '-1/day', '5/minute,', 'off,5/minute'])('refuses %s, saying what is expected', (spec) => {
  expect(() => parseRateLimit(spec)).toThrow(/invalid rate limit ".*": expected windows like 50\/minute,500\/hour/);
});

test('case and spaces are free', () => {
  expect(parseRateLimit(' 5 / Minute , 2/DAY ')).toEqual([
    { points: 5, unit: 'minute', seconds: 60 },
    { points: 2, unit: 'day', seconds: 86_400 },
  ]);
});
