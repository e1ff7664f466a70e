/**
 * The grammar of a rate limit: "50/minute,500/hour,1000/day" (at least 1 per window; units second,
 * minute, hour, day; case and spaces free), or "off". One parser for every place a limit is written:
 * the `rateLimit` and `failedAuthLimit` options (checked at boot) and a key entry's own limit
 * (checked when the entry is saved), so a value that is accepted is a value that works.
 */
const SECONDS = { second: 1, minute: 60, hour: 3600, day: 86_400 } as const;
export type WindowUnit = keyof typeof SECONDS;

export interface RateWindow {
  points: number;
  unit: WindowUnit;
  seconds: number;
}

/** The windows of a limit, or null for no limit ("off", or empty). */
export type RateLimitPolicy = RateWindow[] | null;

export const RATE_LIMIT_FORMAT = 'windows like 50/minute,500/hour (units second, minute, hour, day; at least 1 each), or off';

const WINDOW = /^(\d+)\s*\/\s*(second|minute|hour|day)$/;

/** Parses a limit; throws an Error saying what is wrong and what is expected. */
export function parseRateLimit(spec: string | null | undefined): RateLimitPolicy {
  const text = (spec ?? '').trim().toLowerCase();
  if (text === '' || text === 'off') return null;
  return text.split(',').map((part) => {
    const match = WINDOW.exec(part.trim());
    if (!match || Number(match[1]) < 1) {
      throw new Error(`invalid rate limit "${part.trim()}": expected ${RATE_LIMIT_FORMAT}`);
    }
    const unit = match[2] as WindowUnit;
    return { points: Number(match[1]), unit, seconds: SECONDS[unit] };
  });
}
