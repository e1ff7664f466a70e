/**
 * Which request paths are the upload API's: Strapi's body parser leaves their bodies to the upload
 * pipeline, and the API's CORS policy answers for them (http-entries.ts), and so do Node's parser
 * errors (http/client-errors.ts).
 *
 * They match exactly as Strapi's router (@koa/router, path-to-regexp) matches the API's routes:
 * case-insensitively, on the raw path, a route's parameters decoded once matched. A path the router
 * sends to the upload controller is an upload path here too, however it is spelled (`/API/1/Upload/`),
 * and one it does not (`/api//1/upload`, `/1/%75pload`) is not: the pipeline never meets a body
 * Strapi's parser has read, and no body of the API reaches Strapi's. tests/api/hostile/where-bodies-are-read.test.ts
 * holds both against the live router.
 */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../get-service';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The router's patterns for the API's paths: `<prefix>/:version(\d+)/:action(.*)` (the upload
 * dialect's namespace, routes/index.ts) and `imgbbPath` with and without a trailing slash
 * (routes/imgbb-routes.ts), each as path-to-regexp compiles it (`sensitive: false`, `strict: false`: one
 * more slash may follow).
 */
function uploadRoutePatterns(strapi: Core.Strapi) {
  const prefix = (strapi.config.get('api.rest.prefix') as string) ?? '/api';
  const imgbb = getConfig(strapi).imgbbPath;
  return {
    namespace: new RegExp(`^${escapeRegExp(prefix)}/(\\d+)/(.*)$`, 'i'),
    imgbb: imgbb === null ? null : new RegExp(`^${escapeRegExp(imgbb)}/{0,2}$`, 'i'),
  };
}

/** `<prefix>/<digits>/...` (the upload dialect's namespace) and the imgbb dialect's path (`imgbbPath`). */
export function uploadPathMatcher(strapi: Core.Strapi): (path: string) => boolean {
  const { namespace, imgbb } = uploadRoutePatterns(strapi);
  return (path: string) => namespace.test(path) || (imgbb !== null && imgbb.test(path));
}

