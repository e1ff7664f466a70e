/**
 * API keys never reach a log: clients put them in query strings (`?key=...`), and Strapi's request
 * logger writes `ctx.url` once the request is done. Wrapping `strapi::logger` lets the URL be
 * redacted after the app has used it and before the line is written.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Middleware, Next } from 'koa';

const KEY_PARAM = /([?&](?:key|api_key|apikey)=)[^&#]*/gi;

export const redactKeys = (url: string) => url.replace(KEY_PARAM, '$1[REDACTED]');

export function redactKeysInRequestLog(strapi: Core.Strapi) {
  strapi.get('middlewares').extend('strapi::logger', (factory: (config: unknown, deps: unknown) => Middleware) => {
    return (config: unknown, deps: unknown) => {
      const logger = factory(config, deps);
      return (ctx: Context, next: Next) =>
        logger(ctx, async () => {
          try {
            await next();
          } finally {
            const redacted = redactKeys(ctx.url);
            if (redacted !== ctx.url) ctx.url = redacted;
          }
        });
    };
  });
}
