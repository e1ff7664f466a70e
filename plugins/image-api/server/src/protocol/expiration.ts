/**
 * The `expiration` of an upload (docs/api.md, "Expiration"): seconds as digits (`600`) or an ISO 8601
 * duration (`PT10M`, `P1D`, `P1Y2M`, read by luxon), within the `minExpiration`..`maxExpiration`
 * seconds of the configuration. A calendar duration counts from now (`P1M` from 31 January is 28 or
 * 29 days). The same grammar serves a key entry's default expiration, checked when it is saved.
 */
import { DateTime, Duration } from 'luxon';
import { errors } from '../http/api-error';

export interface ExpirationLimits {
  minExpiration: number;
  maxExpiration: number;
}

const SECONDS = /^\d+$/;

/** The seconds `text` asks for, counted from `now`; the error table's 150 when it is not an expiration within the limits. */
export function expirationSeconds(text: string, limits: ExpirationLimits, now: Date = new Date()): number {
  const value = text.trim();
  let seconds: number | null = null;
  if (SECONDS.test(value)) seconds = Number(value);
  // luxon reads negative parts (`P1DT-1H` is 23 hours): an expiration is a length of time, every part of it too.
  else if (!value.includes('-')) {
    const duration = Duration.fromISO(value);
    if (duration.isValid) {
      const start = DateTime.fromJSDate(now, { zone: 'utc' });
      seconds = Math.round(start.plus(duration).diff(start).as('seconds'));
    }
  }
  if (seconds === null || !Number.isSafeInteger(seconds) || seconds < limits.minExpiration || seconds > limits.maxExpiration) {
    throw errors.invalidExpiration(limits.minExpiration, limits.maxExpiration);
  }
  return seconds;
}
