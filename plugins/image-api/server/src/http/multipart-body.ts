/**
 * Multipart bodies outside the upload API: read only by the routes that read them, each into a temp
 * folder of the request's own, removed when the request ends whatever happened.
 *
 * Strapi's body parser (`strapi::body`: koa-body 6 and formidable 2) writes every file part of every
 * multipart request, on any path, to the OS temp folder, and removes only a part named `files`, and
 * only when the request succeeds; over a limit, or on a client abort, formidable's partial files stay
 * too. So http-entries.ts runs it without multipart everywhere, and the routes that read a multipart
 * body (multipart-routes.ts) get this middleware: Strapi's parser as the app configures it, once the
 * route's authentication and policies have passed, with formidable's `uploadDir` set to a folder of
 * the request's own under the plugin's temp root. The folder goes when the route is done, answered,
 * failed or abandoned, so does whatever formidable left in it; a crash leaves it to the boot sweep
 * (storage/debris-sweep.ts). An app's own route that reads multipart names this middleware
 * (`plugin::image-api.multipart-body`) in its `config.middlewares`.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Middleware, Next } from 'koa';
import { endAfterBody } from './end-after-body';
import { createTempFolders, tempRoot } from './temp-folders';
import { getConfig } from '../get-service';

/** A middleware factory as Strapi's registry holds it. */
export type MiddlewareFactory = (config: unknown, deps: { strapi: Core.Strapi }) => Middleware | undefined;

type BodyConfig = Record<string, unknown> & { multipart?: boolean; formidable?: Record<string, unknown> };

/** Strapi's own body parser and the app's settings for it, as http-entries.ts found them. */
interface StrapiBody {
  factory: MiddlewareFactory;
  config: BodyConfig;
}

const strapiBodies = new WeakMap<Core.Strapi, StrapiBody>();

const asBodyConfig = (config: unknown): BodyConfig => (config !== null && typeof config === 'object' ? (config as BodyConfig) : {});

/**
 * Strapi's body parser for every path but the upload API's: as the app configures it, without
 * multipart. A multipart body is not parsed (the routes that read one parse it themselves, after
 * their authentication), and the route sees an empty body, as for a form without fields.
 *
 * A body the route left unread (that one, or one refused half-read: over `jsonLimit`) is discarded
 * as it arrives once the answer is ready, and the response ends after it (at most
 * `bodyIdleTimeoutMs` later): a connection closed on unread data is reset, and the client loses the
 * answer (http/end-after-body.ts).
 */
export function strapiBodyWithoutMultipart(strapi: Core.Strapi, factory: MiddlewareFactory, config: unknown): Middleware | undefined {
  strapiBodies.set(strapi, { factory, config: asBodyConfig(config) });
  const theirs = factory({ ...asBodyConfig(config), multipart: false }, { strapi });
  if (!theirs) return undefined;
  return async (ctx: Context, next: Next) => {
    try {
      await theirs(ctx, () => {
        if (ctx.request.body === undefined && ctx.is('multipart')) ctx.request.body = {};
        return next();
      });
    } finally {
      if (!ctx.req.complete) endAfterBody(ctx.req, ctx.res, getConfig(strapi).bodyIdleTimeoutMs);
    }
  };
}

/** What formidable's errors carry (FormidableError): the status it suggests. */
const formidableStatus = (error: unknown): number | null => {
  const status = (error as { httpCode?: unknown } | null)?.httpCode;
  return typeof status === 'number' ? status : null;
};

/** The route middleware (`plugin::image-api.multipart-body`): see the file comment. */
export default function multipartBody(_config: unknown, { strapi }: { strapi: Core.Strapi }): Middleware {
  const folders = createTempFolders();
  return async (ctx: Context, next: Next) => {
    const body = strapiBodies.get(strapi);
    // Without strapi::body in the app's middlewares, no body is read anywhere; nor is this one.
    if (!body || body.config.multipart === false || !ctx.is('multipart')) return next();
    const { tmpDir, bodyIdleTimeoutMs } = getConfig(strapi);
    const folder = await folders.make(tempRoot(tmpDir));
    let parsed = false;
    try {
      const config = { ...body.config, multipart: true, formidable: { ...(body.config.formidable ?? {}), uploadDir: folder } };
      const parse = body.factory(config, { strapi });
      if (!parse) return await next();
      await parse(ctx, () => {
        parsed = true;
        return next();
      });
    } catch (error) {
      // The route's own errors pass through, and so do the parser's failures (a full disk). Its
      // refusals are the client's: a malformed body, one over formidable's limits (maxFields,
      // maxFieldsSize), one the client cut short. Strapi would log them and answer 500.
      const status = formidableStatus(error);
      if (parsed || (status === null && !ctx.req.aborted)) throw error;
      if (status === 413) ctx.payloadTooLarge('Multipart body over its limits');
      else ctx.badRequest('Malformed multipart body');
    } finally {
      // Answered without reading the whole body (a refusal): the rest is discarded as it arrives.
      if (!ctx.req.complete) endAfterBody(ctx.req, ctx.res, bodyIdleTimeoutMs);
      await folders.remove(folder);
    }
  };
}
