/**
 * Serving (contract §13): transformations under `transformPath`, and, with the local provider, API
 * images' direct URLs under `/uploads/`. Mounted ahead of every Strapi middleware (register.ts):
 * image bytes need no session, body parser, security headers for pages or request log line, and
 * skipping them is most of what makes a hot file cheap (docs/performance.md, "Serving").
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { getConfig, getService } from '../get-service';
import { answerError } from '../http/answers';
import { isApiError, errors, type ApiError } from '../http/api-error';
import { answerGone, answerImmutable } from '../delivery/immutable-answer';
import { clientAddress } from '../requests/client-address';
import { isFileMissing } from '../services/storage/media-store';

const UPLOADS = '/uploads/';

export function imageDelivery(strapi: Core.Strapi) {
  const servesFiles = (strapi.config.get('plugin::upload.provider', 'local') ?? 'local') === 'local';

  async function transformation(ctx: Context, rest: string) {
    const config = getConfig(strapi);
    try {
      const answer = async (skipKept: boolean) => {
        const address = clientAddress(ctx.req, config.trustedProxies);
        const { entry, varyAccept } = await getService(strapi, 'transforms').answer(rest, ctx.get('Accept') || undefined, address, { skipKept });
        await answerImmutable(ctx, entry, { maxAgeSeconds: config.cacheMaxAgeSeconds, varyAccept });
      };
      // A kept file that could not be opened (evicted since its row was read): rendered anew.
      await answer(false).catch((error) => (isFileMissing(error) ? answer(true) : Promise.reject(error)));
    } catch (error) {
      const refusal: ApiError = isApiError(error) ? error : errors.internal();
      if (!isApiError(error)) strapi.log.error(`image-api: a transformation failed: ${(error as Error)?.stack ?? error}`);
      answerError(ctx, refusal, 'json');
      ctx.set('Cache-Control', 'no-store');
    }
  }

  async function directFile(ctx: Context, next: Next, fileName: string) {
    const found = await getService(strapi, 'direct-files').find(fileName);
    if (found === 'not-ours') return next();
    if (found === 'gone') return answerGone(ctx);
    await answerImmutable(ctx, found, { maxAgeSeconds: getConfig(strapi).cacheMaxAgeSeconds });
  }

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const { path } = ctx;
    const transformPath = getConfig(strapi).transformPath;
    if (transformPath !== null && path.startsWith(`${transformPath}/`)) return transformation(ctx, path.slice(transformPath.length));
    if (servesFiles && path.startsWith(UPLOADS) && path.indexOf('/', UPLOADS.length) === -1) {
      let fileName: string;
      try {
        fileName = decodeURIComponent(path.slice(UPLOADS.length));
      } catch {
        return next();
      }
      return directFile(ctx, next, fileName);
    }
    return next();
  };
}
