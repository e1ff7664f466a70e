/**
 * Admin panel actions on a key entry: reveal its key, issue a new one. Allowed to admins who may
 * edit API key entries in the Content Manager.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { getService } from '../get-service';
import { API_KEY_UID } from '../constants';


export default ({ strapi }: { strapi: Core.Strapi }) => {
  const keys = () => getService(strapi, 'api-keys');
  const allowed = (ctx: Context) => ctx.state.userAbility?.can('plugin::content-manager.explorer.update', API_KEY_UID) === true;

  return {
    async reveal(ctx: Context) {
      if (!allowed(ctx)) return ctx.forbidden();
      const key = await keys().reveal(ctx.params.documentId);
      if (key === null) return ctx.notFound('No key to reveal for this entry');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: { key } };
    },

    async regenerate(ctx: Context) {
      if (!allowed(ctx)) return ctx.forbidden();
      const key = await keys().regenerate({ documentId: ctx.params.documentId });
      if (key === null) return ctx.notFound('No such key entry');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: { key } };
    },
  };
};
