/**
 * Routes outside the /api prefix (registered with strapi.server.routes in register.ts): the viewer
 * page, its report form's post and the delete link (pages/viewer-controller.ts). Public: the id, and
 * the link's secret, are the credentials; a report is bounded per address instead.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { PLUGIN_ID, VIEWER_PATH } from '../config/constants';

export function pageRoutes(strapi: Core.Strapi) {
  type Action = 'show' | 'report' | 'confirmDelete' | 'deleteByLink';
  const viewer = (action: Action) => (ctx: Context, next: Next) => strapi.plugin(PLUGIN_ID).controller('viewer')[action](ctx, next);
  const route = (method: 'GET' | 'POST' | 'DELETE', path: string, action: Action) => ({
    method,
    path: `${VIEWER_PATH}${path}`,
    handler: viewer(action),
    config: { auth: false as const },
  });
  return [
    route('GET', '/:id', 'show'),
    route('POST', '/:id/report', 'report'),
    route('GET', '/:id/delete/:secret', 'confirmDelete'),
    route('POST', '/:id/delete/:secret', 'deleteByLink'),
    route('DELETE', '/:id/delete/:secret', 'deleteByLink'),
  ];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether a path is the report route's, as the router matches `/:id/report` (path-to-regexp: in any
 * case, one more slash allowed, the id one segment): Strapi's body parser leaves its body to the
 * route, which reads a few KB of it at most (http-entries.ts, http/small-body.ts).
 */
export function reportPathMatcher(): (path: string) => boolean {
  const pattern = new RegExp(`^${escapeRegExp(VIEWER_PATH)}/[^/]+/report/?$`, 'i');
  return (path: string) => pattern.test(path);
}
