/**
 * What `/_health` reports (docs/operations.md): whether this instance can serve
 * uploads. The database must answer `select 1` within a short time, and an instance that is shutting
 * down is unhealthy too, so a load balancer stops sending it requests. Redis is optional: when the
 * configured Redis does not answer a PING, uploads still work (rate limits count in memory), so the
 * instance is degraded, not unhealthy; a balancer must not take every instance out for it.
 */
import type { Core } from '@strapi/strapi';
import { getService } from '../get-service';

/** How long the database may take to answer the check. */
export const HEALTH_DATABASE_TIMEOUT_MS = 2000;

export type CheckResult = 'up' | 'down';

export interface HealthReport {
  /** The instance can serve: the database answers and it is not shutting down. */
  healthy: boolean;
  /** What does not answer and the instance needs, for the message; empty when healthy. */
  failing: string[];
  /** What does not answer and the instance does without (Redis); empty when all answer. */
  degraded: string[];
  checks: { database: CheckResult; redis?: CheckResult; shutdown?: 'in progress' };
}

/** Settles with `work`'s result, or with false after `ms`. */
function within(ms: number, work: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([work.catch(() => false), late]).finally(() => clearTimeout(timer));
}

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async check(): Promise<HealthReport> {
    const [database, redis] = await Promise.all([
      within(HEALTH_DATABASE_TIMEOUT_MS, strapi.db.connection.raw('select 1').then(() => true)),
      getService(strapi, 'rate-limits').redisAnswers(),
    ]);
    const draining = getService(strapi, 'request-gate').draining();
    const checks: HealthReport['checks'] = { database: database ? 'up' : 'down' };
    if (redis !== null) checks.redis = redis ? 'up' : 'down';
    if (draining) checks.shutdown = 'in progress';
    const failing = database ? [] : ['the database'];
    const degraded = redis === false ? ['Redis'] : [];
    return { healthy: failing.length === 0 && !draining, failing, degraded, checks };
  },
});
