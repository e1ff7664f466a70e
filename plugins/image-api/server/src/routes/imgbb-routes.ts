/**
 * The imgbb dialect's upload route at the server root (`imgbbPath`, default `/1/upload`; registered
 * with strapi.server.routes in register.ts, as it lies outside the /api prefix). Public: the
 * controller checks the API key itself.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { PLUGIN_ID } from '../config/constants';
import { getConfig } from '../get-service';

export function imgbbRoutes(strapi: Core.Strapi) {
  const path = getConfig(strapi).imgbbPath;
  if (path === null) return [];
  const handler = (ctx: Context, next: Next) => strapi.plugin(PLUGIN_ID).controller('api').handleImgbb(ctx, next);
  // Clients differ on the trailing slash, as for /api/1/upload; any other method gets the 405 answer.
  return (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).flatMap((method) =>
    [path, `${path}/`].map((routePath) => ({ method, path: routePath, handler, config: { auth: false as const } }))
  );
}
