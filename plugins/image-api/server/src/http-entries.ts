/**
 * Every way a request enters the plugin, in the order a request meets them. Called once, from
 * register.ts (Strapi builds its middleware stack and router after the plugins' register, so what is
 * declared here is in place before the first request).
 *
 * Besides these, two entries are declared where Strapi looks for them:
 * - the plugin's routes (routes/index.ts, loaded by Strapi from index.ts): the upload API's
 *   `/api/<version>/<action>` and its description `/api/1/openapi.json`, `/api/1/docs`; the admin
 *   panel's routes;
 * - the route middleware `plugin::image-api.multipart-body` (http/multipart-body.ts), which Strapi's
 *   multipart routes are given below and an app's own route may name.
 * And one more middleware is added with the protections it serves: the strip of server-only fields
 * from every answer's body (admin/field-protection.ts, called from register.ts).
 */
import cors from '@koa/cors';
import type { Core } from '@strapi/strapi';
import type { Context, Middleware, Next } from 'koa';
import { getConfig } from './get-service';
import { answerClientErrors } from './http/client-errors';
import { strapiBodyWithoutMultipart, type MiddlewareFactory } from './http/multipart-body';
import { readMultipartOnStrapiRoutes } from './http/multipart-routes';
import { redactSecretsInRequestLog } from './operations/log-redaction';
import { healthEndpoint } from './operations/health-endpoint';
import { metricsEndpoint } from './operations/metrics-endpoint';
import { installImageFastPath } from './delivery/image-fast-path';
import { imageDelivery } from './delivery/image-delivery';
import { uploadPathMatcher } from './api/upload-paths';
import { leaveBodyToPipeline } from './api/upload-pipeline';
import { pageRoutes, reportPathMatcher } from './routes/page-routes';
import { leaveBodyToRoute } from './http/small-body';
import { imgbbRoutes } from './routes/imgbb-routes';
import { blocklistImportPathMatcher } from './routes';
import { endAfterBody } from './http/end-after-body';

export function addHttpEntries(strapi: Core.Strapi): void {
  const server = strapi.server.httpServer;
  const isUploadPath = uploadPathMatcher(strapi);

  // Raw listeners on Node's server, ahead of Koa.
  // Errors Node's parser meets before a request reaches Koa (a header too large, a request too slow)
  // answered in the API's error shape on its paths (http/client-errors.ts).
  answerClientErrors(server, isUploadPath);
  // Hot image bytes answered before Koa builds a context (delivery/image-fast-path.ts).
  installImageFastPath(strapi, server);

  // Middlewares ahead of every middleware of the app's config/middlewares.ts, in this order.
  // The plugin's health check, ahead of Strapi's own /_health, which answers 204 whatever the database
  // and Redis say (operations/health-endpoint.ts).
  strapi.server.use(healthEndpoint(strapi));
  // Prometheus' scrape, outside the upload gate: an instance that refuses uploads is still seen.
  strapi.server.use(metricsEndpoint(strapi));
  // Direct image URLs and transformations, ahead of strapi::public, which serves the local provider's
  // files (docs/api.md, "Serving images").
  strapi.server.use(imageDelivery(strapi));

  // Strapi's own middlewares, wrapped (Strapi's documented `extend` hook): the host app's
  // config/middlewares.ts needs no change.
  // The request log shows no secret: keys in queries, delete links (operations/log-redaction.ts).
  redactSecretsInRequestLog(strapi);
  // The upload API answers CORS per IMAGE_API_CORS_ORIGINS; every other route keeps the app's policy.
  wrapForUploadPaths(strapi, isUploadPath, 'strapi::cors', () => uploadCors(strapi), (factory, config) => factory(config, { strapi }));
  // The upload API's bodies are read by its pipeline (api/upload-pipeline.ts), after the request
  // gate and the header's key; every other route keeps Strapi's parser, without multipart
  // (http/multipart-body.ts).
  // So is a viewer's report's, read by its route up to a few KB (pages/viewer-controller.ts).
  // So is a hash list's, read by its admin route up to megabytes once its permission is checked
  // (moderation/review-admin-controller.ts); a request refused before is discarded as it arrives.
  const isReportPath = reportPathMatcher();
  const isImportPath = blocklistImportPathMatcher();
  wrapForUploadPaths(
    strapi,
    (path) => isUploadPath(path) || isReportPath(path) || isImportPath(path),
    'strapi::body',
    () => async (ctx: Context, next: Next) => {
      if (isImportPath(ctx.path)) {
        leaveBodyToRoute(ctx);
        try {
          return await next();
        } finally {
          if (!ctx.req.complete) endAfterBody(ctx.req, ctx.res, getConfig(strapi).bodyIdleTimeoutMs);
        }
      }
      if (isReportPath(ctx.path)) leaveBodyToRoute(ctx);
      else leaveBodyToPipeline(ctx);
      return next();
    },
    (factory, config) => strapiBodyWithoutMultipart(strapi, factory, config)
  );

  // Routes of Strapi that read a multipart body get it parsed, after their own authentication
  // (http/multipart-routes.ts).
  readMultipartOnStrapiRoutes(strapi);
  // Routes outside the /api prefix: the viewer page and the delete link (pages/), imgbb's upload path.
  strapi.server.routes(pageRoutes(strapi));
  strapi.server.routes(imgbbRoutes(strapi));
}

/** Strapi's middleware `name`, as ours on the upload paths and as the app configures it elsewhere. */
function wrapForUploadPaths(
  strapi: Core.Strapi,
  isUploadPath: (path: string) => boolean,
  name: string,
  ours: () => Middleware,
  theirsOf: (factory: MiddlewareFactory, config: unknown) => Middleware | undefined
): void {
  strapi.get('middlewares').extend(name, (factory: MiddlewareFactory) => (config: unknown) => {
    const theirs = theirsOf(factory, config);
    const mine = ours();
    return (ctx: Context, next: Next) => (isUploadPath(ctx.path) ? mine(ctx, next) : theirs ? theirs(ctx, next) : next());
  });
}

/** The upload API's CORS policy: the origins of IMAGE_API_CORS_ORIGINS (`*` for any), no credentials. */
function uploadCors(strapi: Core.Strapi): Middleware {
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
