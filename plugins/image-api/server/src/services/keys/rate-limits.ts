/**
 * Rate limits (rate-limiter-flexible): per key, in windows such as "50/minute,500/hour,1000/day"
 * (a key may override the default), and failed authentication per client address. Counters live
 * in Redis when `redisUrl` is set, so every instance shares one budget; in process memory
 * otherwise. If Redis fails, each instance falls back to its own memory counters rather than
 * refusing or waving through everything.
 */
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Core } from '@strapi/strapi';
import { getConfig } from '../../get-service';
import { errors } from '../contract/api-error';
import type { AuthenticatedKey } from './api-keys';
import { parseRateLimit, type RateLimitPolicy, type RateWindow } from '../../config/rate-limit';

export { parseRateLimit, type RateWindow } from '../../config/rate-limit';

type Headers = Record<string, string>;

function quotaHeaders(window: RateWindow, res: RateLimiterRes): Headers {
  return {
    'X-RateLimit-Limit': String(window.points),
    'X-RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
  };
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const limiters = new Map<string, RateLimiterAbstract>();
  let redis: Redis | null = null;

  // Each limit is parsed once. The options were checked at boot and key entries when saved, so a
  // value that does not parse is a key saved before that check: it gets the default limit.
  const policies = new Map<string, RateLimitPolicy>();
  function policy(spec: string): RateLimitPolicy {
    let parsed = policies.get(spec);
    if (parsed === undefined) {
      parsed = parseRateLimit(spec);
      policies.set(spec, parsed);
    }
    return parsed;
  }
  function keyPolicy(key: AuthenticatedKey): RateLimitPolicy {
    const fallback = getConfig(strapi).rateLimit;
    if (key.rateLimit === null) return policy(fallback);
    try {
      return policy(key.rateLimit);
    } catch (error) {
      strapi.log.warn(`image-api: key "${key.name}": ${(error as Error).message}; using the default limit`);
      return policy(fallback);
    }
  }

  function limiter(scope: string, window: RateWindow): RateLimiterAbstract {
    const prefix = `${getConfig(strapi).redisPrefix}:${scope}:${window.points}/${window.unit}`;
    let found = limiters.get(prefix);
    if (!found) {
      const options = { keyPrefix: prefix, points: window.points, duration: window.seconds };
      found = redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
      limiters.set(prefix, found);
    }
    return found;
  }

  /** Consumes one point in every window; the headers of the tightest one, or a 429. */
  async function consume(scope: string, id: string, windows: RateWindow[], what: string): Promise<Headers> {
    const results = await Promise.allSettled(windows.map((w) => limiter(scope, w).consume(id)));
    let tightest: { window: RateWindow; res: RateLimiterRes } | null = null;
    let refused: { window: RateWindow; res: RateLimiterRes } | null = null;
    results.forEach((result, i) => {
      const res = result.status === 'fulfilled' ? result.value : result.reason;
      if (!(res instanceof RateLimiterRes)) throw res;
      const entry = { window: windows[i], res };
      if (result.status === 'rejected') {
        if (!refused || res.msBeforeNext > refused.res.msBeforeNext) refused = entry;
      } else if (!tightest || res.remainingPoints < tightest.res.remainingPoints) {
        tightest = entry;
      }
    });
    if (refused) {
      const { window, res } = refused as { window: RateWindow; res: RateLimiterRes };
      throw errors.rateLimited(`Rate limit exceeded: ${window.points} ${what} per ${window.unit}`, {
        ...quotaHeaders(window, res),
        'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))),
      });
    }
    const { window, res } = tightest as unknown as { window: RateWindow; res: RateLimiterRes };
    return quotaHeaders(window, res);
  }

  return {
    async connect() {
      const url = getConfig(strapi).redisUrl;
      if (!url || redis) return;
      // No offline queue: a command while Redis is away fails fast and the memory insurance answers.
      redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
      redis.on('error', (error) => strapi.log.warn(`image-api: Redis: ${error.message}`));
      await redis.connect();
    },

    async disconnect() {
      limiters.clear();
      if (redis) await redis.quit().catch(() => redis?.disconnect());
      redis = null;
    },

    /** Charges one upload to the key: quota headers, or a 429 with Retry-After. */
    async chargeKey(key: AuthenticatedKey): Promise<Headers> {
      const windows = keyPolicy(key);
      return windows ? consume('key', String(key.id), windows, 'uploads') : {};
    },

    /** Refuses an address that failed authentication too often (before its key is even looked up). */
    async checkAddress(ip: string): Promise<void> {
      const windows = policy(getConfig(strapi).failedAuthLimit);
      if (!windows) return;
      for (const window of windows) {
        const res = await limiter('authfail', window).get(ip);
        if (res && res.consumedPoints >= window.points) {
          throw errors.rateLimited(`Too many failed authentication attempts: at most ${window.points} per ${window.unit}`, {
            'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))),
          });
        }
      }
    },

    /** Counts a failed authentication against the client address. */
    async recordFailedAuth(ip: string): Promise<void> {
      const windows = policy(getConfig(strapi).failedAuthLimit);
      if (!windows) return;
      await Promise.allSettled(windows.map((w) => limiter('authfail', w).consume(ip)));
    },
  };
};
