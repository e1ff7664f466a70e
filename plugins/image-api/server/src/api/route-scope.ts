/**
 * The upload routes get their own body parser and CORS policy; every other route of the app keeps
 * Strapi's, except that Strapi's parser reads no multipart body there: the routes that read one get
 * it parsed by a middleware of their own (multipart-body.ts, multipart-routes.ts). Done by wrapping
 * the `strapi::body` and `strapi::cors` middlewares (Strapi's documented `extend` hook), so the host
 * app's config/middlewares.ts needs no change. Which paths are the upload routes' is
 * upload-paths.ts's to say, as the router says it.
 */
import cors from '@koa/cors';
import type { Core } from '@strapi/strapi';
import type { Context, Middleware, Next } from 'koa';
import { tempRoot } from '../http/temp-folders';
import { bodyLimitsFor, uploadBody } from './upload-body';
import { admission } from './admission';
import { keyFirst } from './key-first';
import { getConfig } from '../get-service';
import { uploadPathMatcher } from './upload-paths';
import { strapiBodyWithoutMultipart, type MiddlewareFactory } from '../http/multipart-body';

function corsFor(strapi: Core.Strapi): Middleware {
  const origins = () => getConfig(strapi).corsOrigins;
  return cors({
    origin: (ctx: Context) => {
      const allowed = origins();
      if (allowed.includes('*')) return '*';
      const origin = ctx.get('Origin');
      return allowed.includes(origin) ? origin : '';
    },
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'X-API-Key', 'X-Requested-With', 'Accept', 'Origin', 'Idempotency-Key'],
    exposeHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Location', 'Idempotent-Replayed'],
    maxAge: 86400,
  }) as unknown as Middleware;
}

export function scopeMiddlewaresToUploadRoutes(strapi: Core.Strapi) {
  const isUploadPath = uploadPathMatcher(strapi);
  const wrap = (name: string, ours: () => Middleware, theirsOf: (factory: MiddlewareFactory, config: unknown) => Middleware | undefined) => {
    strapi.get('middlewares').extend(name, (factory: MiddlewareFactory) => (config: unknown) => {
      const theirs = theirsOf(factory, config);
      const mine = ours();
      return (ctx: Context, next: Next) =>
        isUploadPath(ctx.path) ? mine(ctx, next) : theirs ? theirs(ctx, next) : next();
    });
  };
  wrap('strapi::body', () => {
    // Admission control first, then a key the header or query carries: a request refused for load,
    // or without a valid key, never has its body read.
    const admit = admission(strapi);
    const checkKey = keyFirst(strapi);
    const body = uploadBody(() => {
      const config = getConfig(strapi);
      return {
        limits: bodyLimitsFor(config.maxBytes),
        tmpRoot: tempRoot(config.tmpDir),
        stall: { windowMs: config.bodyIdleTimeoutMs, minBytesPerSecond: config.bodyMinBytesPerSecond, deadlineMs: config.bodyTimeoutMs },
      };
    });
    return (ctx: Context, next: Next) => admit(ctx, () => checkKey(ctx, () => body(ctx, next)));
  }, (factory, config) => strapiBodyWithoutMultipart(strapi, factory, config));
  wrap('strapi::cors', () => corsFor(strapi), (factory, config) => factory(config, { strapi }));
}
