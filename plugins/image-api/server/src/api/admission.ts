/**
 * The first middleware of the upload routes: asks the request gate (operations/request-gate.ts)
 * before a byte of the body is read. Past its limits, or while the process shuts down, the answer is
 * 503 with Retry-After at once (429 when the client's address holds its share), in the format the
 * query asks; the unread body is discarded as it arrives, never held.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { answerError } from '../protocol/answers';
import { bodyLimitsFor, maxBodyBytes } from './upload-body';
import { answerFormat } from '../protocol/request-params';
import { endAfterBody } from '../http/end-after-body';
import { clientAddress } from '../http/client-address';
import { refusalError, requestsPerAddress } from '../operations/request-gate';
import { getConfig, getService } from '../get-service';
import { uploadDialectMatcher } from './upload-paths';

export { BUSY_RETRY_AFTER_SECONDS } from '../operations/request-gate';

export const hasBody = (ctx: Context) => ctx.get('content-length') !== '' ? Number(ctx.get('content-length')) > 0 : ctx.get('transfer-encoding') !== '';

/**
 * The bytes a request will hold: its declared length, or the largest image when it declares none. A
 * body declared over the routes' limit holds nothing: it is refused (413) before a byte is read.
 */
function bodyBytes(ctx: Context, maxBytes: number): number {
  if (!hasBody(ctx)) return 0;
  const declared = Number(ctx.get('content-length'));
  if (!Number.isFinite(declared) || declared <= 0) return maxBytes;
  return declared > maxBodyBytes(bodyLimitsFor(maxBytes)) ? 0 : declared;
}

/**
 * Whether the request's key is known good before its body is read: a body with an X-API-Key header
 * (key-first.ts refuses a wrong one at once, so it cannot hold a slot), no body at all (nothing to
 * trickle), or, asked only when the share of the others is full, a `key` in the query that is a
 * valid key (imgbb's clients send theirs there). Others may hold only a share of the gate
 * (operations/request-gate.ts): a stranger's slow body cannot shut keyed uploads out.
 */
const vouchedByHeader = (ctx: Context) => !hasBody(ctx) || ctx.get('x-api-key') !== '';

async function vouchedByQuery(strapi: Core.Strapi, ctx: Context): Promise<boolean> {
  const key = ctx.query.key;
  if (typeof key !== 'string' || key === '') return false;
  // Not counted as a failed attempt: a wrong key here is checked again, and counted, once the body is read.
  return getService(strapi, 'api-keys').authenticate(key).then(
    () => true,
    () => false
  );
}

export function admission(strapi: Core.Strapi) {
  const dialectOf = uploadDialectMatcher(strapi);
  return async (ctx: Context, next: Next) => {
    const config = getConfig(strapi);
    const address = clientAddress(ctx.req, config.trustedProxies);
    const gate = getService(strapi, 'request-gate');
    const declared = bodyBytes(ctx, config.maxBytes);
    const vouched = vouchedByHeader(ctx);
    let ticket = gate.enter(declared, address, vouched);
    if (ticket === 'full' && !vouched && (await vouchedByQuery(strapi, ctx))) ticket = gate.enter(declared, address, true);
    if (typeof ticket === 'string') {
      const draining = ticket === 'draining';
      const metrics = getService(strapi, 'metrics');
      metrics.refused(ticket);
      const error = refusalError(ticket, requestsPerAddress(config));
      // The rest of the body is read and discarded before the connection may close: closing it on
      // unread data resets it, and clients (fetch, among others) then lose the answer. A process
      // that shuts down closes the connection after the answer all the same.
      if (draining) ctx.set('Connection', 'close');
      answerError(ctx, error, answerFormat(ctx.query.format));
      const dialect = dialectOf(ctx.path);
      if (dialect) metrics.uploadAnswered(dialect, 'none', ctx.status);
      endAfterBody(ctx.req, ctx.res, config.bodyIdleTimeoutMs);
      return;
    }
    try {
      await next();
    } finally {
      ticket.leave();
    }
  };
}
