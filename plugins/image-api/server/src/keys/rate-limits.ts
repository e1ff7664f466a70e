/**
 * Rate limits (rate-limiter-flexible): per key, in windows such as "50/minute,500/hour,1000/day"
 * (a key may override the default); failed authentication and viewers' reports per client address. Counters live
 * in Redis when `redisUrl` is set, so every instance shares one budget; in process memory
 * otherwise. If Redis is refused, unreachable, or takes longer than `redisTimeoutMs` to answer (a hung
 * server), each instance falls back to its own memory counters rather than refusing or waving
 * through everything, or waiting: an upload never waits on Redis longer than that. The app boots
 * whether Redis answers or not, and uses it as soon as it does. During an outage each instance counts
 * from zero in its memory, so a key may exceed its budget by up to one budget per instance per outage.
 */
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RateLimiterUnion, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Core } from '@strapi/strapi';
import { getConfig } from '../get-service';
import { errors } from '../http/api-error';
import type { AuthenticatedKey } from './api-keys';
import { parseRateLimit, type RateLimitPolicy, type RateWindow } from '../config/rate-limit';

export { parseRateLimit, type RateWindow } from '../config/rate-limit';

type Headers = Record<string, string>;

function quotaHeaders(window: RateWindow, res: RateLimiterRes): Headers {
  return {
    'X-RateLimit-Limit': String(window.points),
    'X-RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
  };
}

/** How often a Redis that stopped answering is asked again, to say so in the log when it is back. */
const RECHECK_MS = 5000;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const limiters = new Map<string, RateLimiterAbstract>();
  let redis: Redis | null = null;

  // One warning when the memory counters take over, one line when Redis answers again.
  let outage: NodeJS.Timeout | null = null;
  function fellBack(reason: string) {
    if (outage || !redis) return;
    strapi.log.warn(`image-api: Redis is not answering (${reason}); rate limits count in this instance's memory until it does`);
    outage = setInterval(async () => {
      if (await redisAnswers()) {
        strapi.log.info('image-api: Redis answers again; rate limits are shared again');
        if (outage) clearInterval(outage);
        outage = null;
      }
    }, RECHECK_MS);
    outage.unref();
  }

  /** Whether the configured Redis answers a PING within `redisTimeoutMs`; null when none is configured. */
  async function redisAnswers(): Promise<boolean | null> {
    if (!redis) return null;
    try {
      return (await redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Memory counters that answer while Redis does not (rate-limiter-flexible's insurance), noting it. */
  class Insurance extends RateLimiterMemory {
    consume(...args: Parameters<RateLimiterMemory['consume']>) {
      fellBack('a command failed or timed out');
      return super.consume(...args);
    }
    get(...args: Parameters<RateLimiterMemory['get']>) {
      fellBack('a command failed or timed out');
      return super.get(...args);
    }
  }

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
        ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new Insurance(options) })
        : new RateLimiterMemory(options);
      limiters.set(prefix, found);
    }
    return found;
  }

  /**
   * Consumes one point in every window at once (rate-limiter-flexible's RateLimiterUnion: all
   * windows are charged, and it fails when any refuses); the headers of the tightest window (fewest
   * points left), or a 429 from the refusing window that frees up last.
   */
  async function consume(scope: string, id: string, windows: RateWindow[], what: string): Promise<Headers> {
    const limiters = windows.map((window) => limiter(scope, window));
    const windowOf = new Map(limiters.map((found, i) => [found.keyPrefix, windows[i]]));
    // By keyPrefix: every window's result when all took the point, the refusing ones' otherwise.
    const answers = (results: Record<string, unknown>) =>
      Object.entries(results).map(([prefix, res]) => {
        if (!(res instanceof RateLimiterRes)) throw res;
        return { window: windowOf.get(prefix)!, res };
      });
    let taken: Record<string, unknown>;
    try {
      taken = await new RateLimiterUnion(...limiters).consume(id);
    } catch (results) {
      if (results instanceof Error) throw results;
      const refused = answers(results as Record<string, unknown>).reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
      throw errors.rateLimited(`Rate limit exceeded: ${refused.window.points} ${what} per ${refused.window.unit}`, {
        ...quotaHeaders(refused.window, refused.res),
        'Retry-After': String(Math.max(1, Math.ceil(refused.res.msBeforeNext / 1000))),
      });
    }
    const tightest = answers(taken).reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a));
    return quotaHeaders(tightest.window, tightest.res);
  }

  return {
    redisAnswers,

    /** Connects to the configured Redis; never fails: without it, the memory counters answer. */
    async connect() {
      const { redisUrl, redisTimeoutMs } = getConfig(strapi);
      if (!redisUrl || redis) return;
      redis = new Redis(redisUrl, {
        // No offline queue and a command timeout: a command while Redis is away or hung fails within
        // redisTimeoutMs, and the memory insurance answers instead.
        enableOfflineQueue: false,
        commandTimeout: redisTimeoutMs,
        connectTimeout: Math.max(1000, redisTimeoutMs * 4),
        maxRetriesPerRequest: 1,
        lazyConnect: true,
        // Keeps reconnecting, at most every 2 s, for as long as the app runs.
        retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      });
      redis.on('error', (error) => fellBack(error.message));
      try {
        await redis.connect();
      } catch (error) {
        fellBack((error as Error).message);
      }
    },

    async disconnect() {
      if (outage) clearInterval(outage);
      outage = null;
      limiters.clear();
      if (redis) await redis.quit().catch(() => redis?.disconnect());
      redis = null;
    },

    /** Charges one upload to the key: quota headers, or a 429 with Retry-After. */
    async chargeKey(key: AuthenticatedKey): Promise<Headers> {
      const windows = keyPolicy(key);
      return windows ? consume('key', String(key.id), windows, 'uploads') : {};
    },

    /**
     * Gives back the upload chargeKey took, when the request stored nothing (refused input, a
     * failure, a twin's replay): only uploads that were stored count against a key's budget.
     */
    async refundKey(key: AuthenticatedKey): Promise<void> {
      const windows = keyPolicy(key);
      if (!windows) return;
      await Promise.allSettled(windows.map((w) => limiter('key', w).reward(String(key.id), 1)));
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

    /**
     * Charges one viewer's report to the client address (`moderation.reportsPerAddress`): quota
     * headers, or a 429 with Retry-After.
     */
    async chargeReport(ip: string): Promise<Headers> {
      const windows = policy(getConfig(strapi).moderation.reportsPerAddress);
      return windows ? consume('report', ip, windows, 'reports') : {};
    },

    /** Counts a failed authentication against the client address. */
    async recordFailedAuth(ip: string): Promise<void> {
      const windows = policy(getConfig(strapi).failedAuthLimit);
      if (!windows) return;
      await Promise.allSettled(windows.map((w) => limiter('authfail', w).consume(ip)));
    },
  };
};
