/**
 * Between admission and the body parser of the upload routes: a request that has a body and sends its
 * key in the X-API-Key header has that key checked before a byte of the body is read. Without a valid
 * key, such a body costs nothing to refuse (a 16 MB hostile JSON body once blocked the event loop for
 * seconds before the 401). The answer is the one the action would give (401, 403, or 429 for an
 * address past its failed attempts), in the format the query asks; the unread body is discarded as it
 * arrives. The header is the one place that settles the key: a `key` in the query string yields to
 * one in the body (docs/api.md, "Parameters"), so it, like a key in the body, is checked once the body is read, and
 * the parsers bound what reading costs (upload-body/form.ts, upload-body/multipart.ts).
 *
 * Only a refusal is answered here: an outage (the database away) falls through to the action, which
 * meets it again and answers it as it answers every outage.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { answerError } from '../protocol/answers';
import { isApiError } from '../http/api-error';
import { answerFormat } from '../protocol/request-params';
import { endAfterBody } from '../http/end-after-body';
import { getConfig, getService } from '../get-service';
import { hasBody } from './admission';
import { uploadDialectMatcher } from './upload-paths';

export function keyFirst(strapi: Core.Strapi) {
  const dialectOf = uploadDialectMatcher(strapi);
  return async (ctx: Context, next: Next) => {
    const key = hasBody(ctx) ? ctx.get('x-api-key') : '';
    if (key !== '') {
      try {
        await getService(strapi, 'access').authenticate(key, ctx.req);
      } catch (error) {
        if (!isApiError(error)) return next();
        answerError(ctx, error, answerFormat(ctx.query.format));
        const dialect = dialectOf(ctx.path);
        if (dialect) getService(strapi, 'metrics').uploadAnswered(dialect, 'none', ctx.status);
        endAfterBody(ctx.req, ctx.res, getConfig(strapi).bodyIdleTimeoutMs);
        return;
      }
    }
    return next();
  };
}
