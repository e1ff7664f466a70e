/** What each mode decides (moderation/moderation-modes.ts; docs/moderation.md, "Modes"). */
import { nsfwScore, policyFor, verdict } from '../../server/src/moderation/moderation-modes';

const defaults = { mode: 'flag' as const, threshold: 0.8 };

test("a key's own mode and threshold, each falling back to the option's", () => {
  expect(policyFor({ moderation: null, moderationThreshold: null }, defaults)).toEqual({ mode: 'flag', threshold: 0.8 });
  expect(policyFor({ moderation: 'hold', moderationThreshold: null }, defaults)).toEqual({ mode: 'hold', threshold: 0.8 });
  expect(policyFor({ moderation: null, moderationThreshold: 0 }, defaults)).toEqual({ mode: 'flag', threshold: 0 });
  expect(policyFor({ moderation: 'off', moderationThreshold: 0.5 }, defaults)).toEqual({ mode: 'off', threshold: 0.5 });
});

test('the score: porn + hentai + sexy, clamped, 4 decimals', () => {
  expect(nsfwScore({ drawing: 0.1, hentai: 0.2, neutral: 0.1, porn: 0.3, sexy: 0.3 })).toBe(0.8);
  expect(nsfwScore({ drawing: 0.5, hentai: 0.000012, neutral: 0.5, porn: 0, sexy: 0 })).toBe(0);
  expect(nsfwScore({ drawing: 0, hentai: 0.6, neutral: 0, porn: 0.6, sexy: 0 })).toBe(1);
  expect(nsfwScore({ drawing: 0.9, hentai: 0.012345, neutral: 0.0, porn: 0, sexy: 0 })).toBe(0.0123);
});

test.each([
  // mode, threshold, score, client nsfw → state, nsfw, refuse
  ['off', 0.5, null, false, 'none', false, false],
  ['off', 0.5, null, true, 'none', true, false],
  ['flag', 0.5, 0.49, false, 'none', false, false],
  ['flag', 0.5, 0.5, false, 'flagged', true, false],
  ['flag', 1, 0.2, true, 'flagged', true, false],
  ['hold', 0.5, 0.9, false, 'held', true, false],
  ['hold', 0.5, 0.1, false, 'none', false, false],
  ['hold', 1, 0, true, 'held', true, false],
  ['refuse', 0.5, 0.5, false, 'none', true, true],
  ['refuse', 0.5, 0.4999, false, 'none', false, false],
  ['refuse', 1, 0, true, 'none', true, true],
] as const)('%s at %s, score %s, client nsfw %s: %s', (mode, threshold, score, clientNsfw, state, nsfw, refuse) => {
  expect(verdict({ mode, threshold }, score, clientNsfw)).toEqual({ state, nsfw, refuse });
});
