/**
 * `/_health` with substance: Strapi's own answers 204 whenever the process runs. This one answers
 * 204 when the instance can serve and everything answers (operations/health.ts); 200 with a
 * JSON body naming what is degraded when it can serve without it (Redis); else 503 with
 * `Retry-After` and a JSON body in the API's error shape naming what does not answer. Both bodies
 * carry each check's state.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { errorBody, errors } from '../http/api-error';
import { getService } from '../get-service';

/** `/_health`, as Strapi's router matches its own (any case, one trailing slash): none of them reaches it. */
const HEALTH_PATH = /^\/_health\/?$/i;
const RETRY_AFTER_SECONDS = 5;

export function healthEndpoint(strapi: Core.Strapi) {
  return async (ctx: Context, next: Next) => {
    if (!HEALTH_PATH.test(ctx.path) || !['GET', 'HEAD'].includes(ctx.method)) return next();
    const report = await getService(strapi, 'health').check();
    ctx.set('Cache-Control', 'no-store');
    if (report.healthy && report.degraded.length === 0) {
      ctx.status = 204;
      return;
    }
    if (report.healthy) {
      ctx.status = 200;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = { status: 'degraded', degraded: report.degraded, checks: report.checks };
      return;
    }
    const { failing } = report;
    const what = failing.length ? `${failing.join(' and ')} ${failing.length > 1 ? 'are' : 'is'} not answering` : 'shutting down';
    const error = errors.unavailable(what, RETRY_AFTER_SECONDS);
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.status = 503;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = { ...errorBody(error), checks: report.checks };
  };
}
