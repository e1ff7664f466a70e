/**
 * The routes' entry to the upload API (routes/index.ts, routes/imgbb-routes.ts): every step, from the
 * request gate to the answer, is the upload pipeline's (api/upload-pipeline.ts).
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { getService } from '../get-service';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** `/api/<version>/<action>`: upload, delete, albums. */
  handle: (ctx: Context) => getService(strapi, 'upload').handle(ctx, 'api'),
  /** `imgbbPath` (`/1/upload`): imgbb's dialect, always an upload. */
  handleImgbb: (ctx: Context) => getService(strapi, 'upload').handle(ctx, 'imgbb'),
});
