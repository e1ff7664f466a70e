/**
 * The routes of Strapi that read a multipart body, in one place: they alone get one parsed
 * (multipart-body.ts), after their own authentication and policies. Found by their handlers in
 * Strapi 5.54's route definitions (@strapi/upload's server/routes, @strapi/admin's server/src/routes),
 * every controller that reads `ctx.request.files` or a form the admin panel sends as FormData. Other
 * paths' multipart bodies are not read; the route sees an empty body.
 */
import type { Core } from '@strapi/strapi';

/** The route middleware's name, as a route's `config.middlewares` gives it. */
export const MULTIPART_MIDDLEWARE = 'plugin::image-api.multipart-body';

interface MultipartRoute {
  /** Whose routes: the admin's, or a plugin's. */
  owner: 'admin' | `plugin::${string}`;
  method: 'POST' | 'PUT';
  handler: string;
  /** The path a client calls, for the reader. */
  path: string;
}

export const STRAPI_MULTIPART_ROUTES: readonly MultipartRoute[] = [
  // The Media Library: an upload; with `?id=` it replaces a file, or updates its info without one.
  { owner: 'plugin::upload', method: 'POST', handler: 'admin-upload.upload', path: '/upload' },
  { owner: 'plugin::upload', method: 'POST', handler: 'admin-upload.uploadFile', path: '/upload/files' },
  { owner: 'plugin::upload', method: 'POST', handler: 'admin-upload.replaceFile', path: '/upload/files/:id/replace' },
  // The panel sends a file's new info as FormData.
  { owner: 'plugin::upload', method: 'PUT', handler: 'admin-upload.updateFileInfo', path: '/upload/files/:id' },
  // The content API's upload (`?id=` replaces).
  { owner: 'plugin::upload', method: 'POST', handler: 'content-api.upload', path: '/api/upload' },
  // The admin panel's logos.
  { owner: 'admin', method: 'POST', handler: 'admin.updateProjectSettings', path: '/admin/project-settings' },
];

interface RouteDefinition {
  method?: unknown;
  handler?: unknown;
  config?: { middlewares?: unknown[] } & Record<string, unknown>;
}

/** The route definitions of a plugin's or the admin's routers, as loaded (an object of routers, or an array). */
function definitionsOf(routers: unknown): RouteDefinition[] {
  if (Array.isArray(routers)) return routers as RouteDefinition[];
  if (routers === null || typeof routers !== 'object') return [];
  // A router is `{ type, routes }`, or a factory carrying its routes (@strapi/utils' content API routers).
  return Object.values(routers).flatMap((router) => {
    const routes = (router as { routes?: unknown } | null)?.routes;
    return Array.isArray(routes) ? (routes as RouteDefinition[]) : [];
  });
}

/**
 * Gives the multipart routes their parser. Runs in the plugin's register(), before Strapi builds its
 * router from these definitions; a route not found (another Strapi version) is named in the log.
 */
export function readMultipartOnStrapiRoutes(strapi: Core.Strapi): void {
  for (const wanted of STRAPI_MULTIPART_ROUTES) {
    const routers = wanted.owner === 'admin' ? strapi.admin?.routes : strapi.plugin(wanted.owner.slice('plugin::'.length))?.routes;
    const route = definitionsOf(routers).find((r) => r.handler === wanted.handler && r.method === wanted.method);
    if (!route) {
      strapi.log.warn(`image-api: ${wanted.method} ${wanted.path} (${wanted.handler}) not found among Strapi's routes: its multipart bodies are not read`);
      continue;
    }
    route.config ??= {};
    const middlewares = route.config.middlewares ?? [];
    if (!middlewares.includes(MULTIPART_MIDDLEWARE)) route.config.middlewares = [MULTIPART_MIDDLEWARE, ...middlewares];
  }
}
