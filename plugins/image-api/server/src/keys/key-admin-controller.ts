/**
 * Admin panel actions on a key entry: reveal its key, issue a new one, download a client
 * configuration filled in with it. Allowed to admins with the plugin's "Reveal API keys"
 * permission (routes/index.ts).
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { getService } from '../get-service';
import { CLIENT_KINDS, type ClientKind } from '../../../shared/contracts/admin-routes';


export default ({ strapi }: { strapi: Core.Strapi }) => {
  const keys = () => getService(strapi, 'api-keys');

  return {
    async reveal(ctx: Context) {
      const key = await keys().reveal(ctx.params.documentId);
      if (key === null) return ctx.notFound('No key to reveal for this entry');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: { key } };
    },

    async clientConfig(ctx: Context) {
      const kind = String(ctx.params.kind);
      if (!(CLIENT_KINDS as readonly string[]).includes(kind)) return ctx.notFound(`No client configuration "${kind}"`);
      const config = await getService(strapi, 'client-configs').forEntry(kind as ClientKind, ctx.params.documentId);
      if (config === null) return ctx.notFound('No key to reveal for this entry');
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Disposition', `attachment; filename="${config.filename}"`);
      ctx.type = config.contentType;
      ctx.body = config.body;
    },

    async regenerate(ctx: Context) {
      const key = await keys().regenerate({ documentId: ctx.params.documentId });
      if (key === null) return ctx.notFound('No such key entry');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: { key } };
    },
  };
};
