/** Which request paths are the upload API's: its middlewares and its metrics go by them. */
import type { Core } from '@strapi/strapi';
import type { Dialect } from '../controllers/api/action';
import { getConfig } from '../get-service';

/** `/api/<digits>/...` (the upload dialect's namespace) and the imgbb dialect's path (`imgbbPath`). */
export function uploadPathMatcher(strapi: Core.Strapi) {
  const prefix = (strapi.config.get('api.rest.prefix') as string) ?? '/api';
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped}/\\d+(/.*)?$`);
  const imgbb = getConfig(strapi).imgbbPath;
  return (path: string) => pattern.test(path) || (imgbb !== null && (path === imgbb || path === `${imgbb}/`));
}

/**
 * The dialect of an upload path (`/api/1/upload`, or `imgbbPath`), else null: what the metrics count
 * a refusal under when it is answered before the action runs (services/runtime/metrics.ts).
 */
export function uploadDialectMatcher(strapi: Core.Strapi): (path: string) => Dialect | null {
  const prefix = (strapi.config.get('api.rest.prefix') as string) ?? '/api';
  const upload = new Set([`${prefix}/1/upload`, `${prefix}/1/upload/`]);
  const imgbb = getConfig(strapi).imgbbPath;
  return (path: string) => (upload.has(path) ? 'api' : imgbb !== null && (path === imgbb || path === `${imgbb}/`) ? 'imgbb' : null);
}

