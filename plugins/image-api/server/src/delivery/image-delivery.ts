/**
 * Serving (docs/api.md, "Serving images"): transformations under `transformPath`, and, with the local provider, API
 * images' direct URLs under `/uploads/`. Mounted ahead of every Strapi middleware (register.ts):
 * image bytes need no session, body parser, security headers for pages or request log line, and
 * skipping them is most of what makes a hot file cheap (docs/performance.md, "Serving").
 *
 * Everything under `/uploads` passes here first, whatever serves it (docs/security.md, "Serving"):
 * a path spelled any other way than `/uploads/<stored name>` answers 404 (delivery/uploads-path.ts),
 * and what Strapi serves there for the Media Library leaves with the headers that keep it from
 * running script on this origin (delivery/inert-files.ts).
 */
import fs from 'fs';
import path from 'path';
import parseRange from 'range-parser';
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { getConfig, getService } from '../get-service';
import { answerError } from '../protocol/answers';
import { isApiError, errors, type ApiError } from '../http/api-error';
import { answerGone, answerImmutable } from './immutable-answer';
import { fileAnswerHeaders, NOSNIFF } from './inert-files';
import { readUploadsPath } from './uploads-path';
import { clientAddress } from '../http/client-address';
import { isFileMissing } from '../storage/media-store';

export function imageDelivery(strapi: Core.Strapi) {
  const servesFiles = (strapi.config.get('plugin::upload.provider', 'local') ?? 'local') === 'local';

  async function transformation(ctx: Context, rest: string) {
    const config = getConfig(strapi);
    try {
      const answer = async (skipKept: boolean) => {
        const address = clientAddress(ctx.req, config.trustedProxies);
        const { entry, varyAccept, of } = await getService(strapi, 'transforms').answer(rest, ctx.get('Accept') || undefined, address, { skipKept });
        await answerImmutable(ctx, entry, { maxAgeSeconds: config.cacheMaxAgeSeconds, varyAccept, sendIdleTimeoutMs: config.sendIdleTimeoutMs, of });
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

  /** 404 that no cache keeps, for a file that is not (or no longer) served, and for other spellings. */
  function gone(ctx: Context) {
    answerGone(ctx);
    ctx.set(NOSNIFF);
  }

  /**
   * A Range past the end of a Media Library file: 416, as for an API image. Strapi's static serving
   * (koa-range) would answer 206 with a negative Content-Length, which proxies turn into 502s.
   */
  function unsatisfiableRange(ctx: Context, fileName: string): boolean {
    const range = ctx.get('Range');
    if (!range) return false;
    let size: number;
    try {
      size = fs.statSync(path.join(strapi.dirs.static.public, 'uploads', fileName)).size;
    } catch {
      return false;
    }
    if (parseRange(size, range) !== -1) return false;
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${size}`);
    ctx.set(fileAnswerHeaders(undefined));
    ctx.type = 'text/plain';
    ctx.body = 'Range Not Satisfiable';
    return true;
  }

  async function uploadsFile(ctx: Context, next: Next, fileName: string) {
    const found = servesFiles ? await getService(strapi, 'direct-files').find(fileName) : 'not-ours';
    if (found === 'gone') return gone(ctx);
    if (found === 'not-ours') {
      if (unsatisfiableRange(ctx, fileName)) return;
      await next();
      // What Strapi served (koa-static: the type the extension says, or none at all); its errors are its own.
      if (ctx.status < 400) ctx.set(fileAnswerHeaders(ctx.type));
      return;
    }
    const { cacheMaxAgeSeconds, sendIdleTimeoutMs } = getConfig(strapi);
    await answerImmutable(ctx, found, { maxAgeSeconds: cacheMaxAgeSeconds, sendIdleTimeoutMs, of: found.of });
    // An API image's type is one of the raster ones; a record that says otherwise is not trusted either.
    ctx.set(fileAnswerHeaders(found.type));
  }

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const requested = ctx.path;
    // First: `/img/../uploads/F` is another spelling of an uploads path, not a transformation.
    const uploads = readUploadsPath(requested);
    if (uploads === 'other-spelling') return gone(ctx);
    if (uploads) return uploadsFile(ctx, next, uploads.fileName);
    const transformPath = getConfig(strapi).transformPath;
    if (transformPath !== null && requested.startsWith(`${transformPath}/`)) return transformation(ctx, requested.slice(transformPath.length));
    return next();
  };
}
