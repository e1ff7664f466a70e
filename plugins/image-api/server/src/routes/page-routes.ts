/**
 * Routes outside the /api prefix (registered with strapi.server.routes in register.ts): the viewer
 * page and the delete link (pages/viewer-controller.ts). Public: the id, and the link's secret, are the
 * credentials.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { PLUGIN_ID, VIEWER_PATH } from '../config/constants';

export function pageRoutes(strapi: Core.Strapi) {
  const viewer = (action: 'show' | 'confirmDelete' | 'deleteByLink') => (ctx: Context, next: Next) =>
    strapi.plugin(PLUGIN_ID).controller('viewer')[action](ctx, next);
  const route = (method: 'GET' | 'POST' | 'DELETE', path: string, action: 'show' | 'confirmDelete' | 'deleteByLink') => ({
    method,
    path: `${VIEWER_PATH}${path}`,
    handler: viewer(action),
    config: { auth: false as const },
  });
  return [
    route('GET', '/:id', 'show'),
    route('GET', '/:id/delete/:secret', 'confirmDelete'),
    route('POST', '/:id/delete/:secret', 'deleteByLink'),
    route('DELETE', '/:id/delete/:secret', 'deleteByLink'),
  ];
}
