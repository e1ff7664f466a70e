/**
 * The admin's "Image API" page: usage, keys and recent images, and deleting an image from there.
 * Each route names the plugin permission it needs (routes/index.ts, admin/admin-permissions.ts); key names
 * appear on images only for admins who may see keys.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { getService } from '../get-service';
import { ACTIONS } from '../config/constants';
import { DEFAULT_USAGE_WINDOW, type OverviewAnswer } from '../../../shared/contracts/usage';

/** The chart's window: 7 to 90 days, 30 unless asked. */
const windowOf = (ctx: Context) => {
  const days = Number(ctx.query.days ?? DEFAULT_USAGE_WINDOW);
  return Number.isInteger(days) && days >= 7 && days <= 90 ? days : DEFAULT_USAGE_WINDOW;
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const report = () => getService(strapi, 'usage-report');
  const can = (ctx: Context, action: string) => ctx.state.userAbility?.can(action) === true;

  return {
    async overview(ctx: Context) {
      const withKeys = can(ctx, ACTIONS.keysManage);
      const answer: OverviewAnswer = {
        ...(await report().overview({ days: windowOf(ctx), withKeys })),
        permissions: {
          keys: withKeys,
          reveal: can(ctx, ACTIONS.keysReveal),
          deleteImages: can(ctx, ACTIONS.imagesDelete),
        },
        serving: report().serving(),
      };
      ctx.body = { data: answer };
    },

    async keys(ctx: Context) {
      ctx.body = { data: await report().keys({ days: windowOf(ctx) }) };
    },

    async keyUsage(ctx: Context) {
      const days = await report().keyUsage(String(ctx.params.documentId), { days: windowOf(ctx) });
      if (days === null) return ctx.notFound('No such key entry');
      ctx.body = { data: days };
    },

    /** What a key holds against its quotas (the key entry's side panel). */
    async keyHolding(ctx: Context) {
      const holding = await report().keyHolding(String(ctx.params.documentId));
      if (holding === null) return ctx.notFound('No such key entry');
      ctx.body = { data: holding };
    },

    /** Transformation URLs for the image records' panel (shared/contracts/serving.ts). */
    serving(ctx: Context) {
      ctx.body = { data: report().serving() };
    },

    async deleteImage(ctx: Context) {
      const image = await getService(strapi, 'images').findForRemoval(String(ctx.params.idEncoded));
      if (!image) return ctx.notFound('No such image');
      await getService(strapi, 'image-removal').remove([image], 'image-api-page');
      ctx.status = 204;
    },
  };
};
