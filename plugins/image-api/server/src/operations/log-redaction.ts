/**
 * Secrets never reach a log: clients put API keys in query strings (`?key=...`), a delete link
 * carries its secret in its path (`/image/<id>/delete/<secret>`), and Strapi's request logger writes
 * `ctx.url` once the request is done. Wrapping `strapi::logger` lets the URL be redacted after the
 * app has used it and before the line is written.
 *
 * A parameter is redacted by the name the server reads, not by its spelling: Strapi parses the query
 * with qs, which percent-decodes names (`%6Bey`) and reads `key[]`, `key[0]` and `key%5B%5D` as `key`.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Middleware, Next } from 'koa';
import { VIEWER_PATH } from '../config/constants';

const REDACTED = '[REDACTED]';
/** Names that carry a key (`key` authenticates; the others are common spellings clients try). */
const KEY_NAMES = new Set(['key', 'api_key', 'apikey']);
/** `?key=` inside another parameter's value (a URL source that carries its own key, say). */
const NESTED_KEY = /([?&](?:key|api_key|apikey)=)[^&#]*/gi;
const DELETE_LINK = new RegExp(`^(${VIEWER_PATH}/[^/?#]+/delete/)[^/?#]+`);

/** A query parameter's name as qs reads it: percent- and plus-decoded, up to its first bracket. */
function parsedName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // qs keeps a malformed escape as it is
  }
  const bracket = name.indexOf('[');
  return (bracket > 0 ? name.slice(0, bracket) : name).toLowerCase();
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1 || !KEY_NAMES.has(parsedName(pair.slice(0, eq)))) return pair.replace(NESTED_KEY, `$1${REDACTED}`);
      return `${pair.slice(0, eq + 1)}${REDACTED}`;
    })
    .join('&');
}

/** `url` (path and query) as it may be logged. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  const path = (mark === -1 ? url : url.slice(0, mark)).replace(DELETE_LINK, `$1${REDACTED}`);
  return mark === -1 ? path : `${path}?${redactQuery(url.slice(mark + 1))}`;
}

export function redactSecretsInRequestLog(strapi: Core.Strapi) {
  strapi.get('middlewares').extend('strapi::logger', (factory: (config: unknown, deps: unknown) => Middleware) => {
    return (config: unknown, deps: unknown) => {
      const logger = factory(config, deps);
      return (ctx: Context, next: Next) =>
        logger(ctx, async () => {
          try {
            await next();
          } finally {
            const redacted = redactUrl(ctx.url);
            if (redacted !== ctx.url) ctx.url = redacted;
          }
        });
    };
  });
}
