/**
 * `GET /_metrics`: Prometheus' text format (operations/metrics.ts), behind a bearer token
 * (`metrics` option, `IMAGE_API_METRICS_TOKEN`). Without a token configured the path does not exist
 * (404, as any unknown path); a missing or wrong token answers 401 with `WWW-Authenticate`, compared
 * in constant time. Outside the admission gate: a scrape must see an instance that refuses uploads.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { getConfig, getService } from '../get-service';

export const METRICS_PATH = '/_metrics';

const digest = (text: string) => crypto.createHash('sha256').update(text).digest();
/** Constant time whatever the lengths: both sides hashed first. */
const sameToken = (sent: string, expected: string) => crypto.timingSafeEqual(digest(sent), digest(expected));

export function metricsEndpoint(strapi: Core.Strapi) {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== METRICS_PATH) return next();
    const token = getConfig(strapi).metrics;
    if (token === null) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      ctx.status = 405;
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    const sent = /^Bearer (.+)$/i.exec(ctx.get('Authorization'))?.[1] ?? '';
    if (!sameToken(sent, token)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.status = 401;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'A bearer token is required (IMAGE_API_METRICS_TOKEN).\n';
      return;
    }
    const { contentType, body } = await getService(strapi, 'metrics').exposition();
    ctx.status = 200;
    ctx.type = contentType;
    ctx.body = body;
  };
}
