/**
 * When the app serves the stored files itself (Strapi's local upload provider, under `/uploads/`), an
 * expired image's files answer 404 from the instant it expires, as its viewer page does, not only once
 * the expiry sweep has removed them (up to `expirySweepSeconds` later). Files stored elsewhere (S3)
 * are served by their storage: there, the sweep is what ends them (docs/security.md).
 *
 * One lookup through the unique index on the image's name (its files are `<name>.<ext>`,
 * `<name>.th.<ext>`, `<name>.md.<ext>`), for the files of `/uploads/` only.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { IMAGE_UID } from '../constants';

const UPLOADS = /^\/uploads\/([^/]+?)(?:\.(?:th|md))?\.[A-Za-z0-9]+$/;

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

export function hideExpiredFiles(strapi: Core.Strapi) {
  const model = () => strapi.db.metadata.get(IMAGE_UID);
  const column = (attribute: string) => (model().attributes[attribute] as { columnName?: string }).columnName ?? attribute;

  return async (ctx: Context, next: Next) => {
    const match = ctx.method === 'GET' || ctx.method === 'HEAD' ? UPLOADS.exec(ctx.path) : null;
    if (!match) return next();
    const expired = await strapi.db
      .connection(model().tableName)
      .where(column('name'), decoded(match[1]))
      .andWhere(column('expires_at'), '<=', new Date())
      .first('id');
    if (!expired) return next();
    ctx.status = 404;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = 'Not Found';
  };
}
