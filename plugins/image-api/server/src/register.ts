import type { Core } from '@strapi/strapi';
import { redactKeysInRequestLog } from './middlewares/log-redaction';
import { scopeMiddlewaresToUploadRoutes } from './middlewares/route-scope';
import { VIEWER_PATH } from './services/public-url';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  scopeMiddlewaresToUploadRoutes(strapi);
  redactKeysInRequestLog(strapi);

  // The viewer page lives outside the /api prefix.
  strapi.server.routes([
    {
      method: 'GET',
      path: `${VIEWER_PATH}/:id`,
      handler: (ctx: any, next: any) => strapi.plugin('image-api').controller('viewer').show(ctx, next),
      config: { auth: false },
    },
  ]);

  // Deleting a file in the Media Library deletes its image record (the provider files go with the file).
  strapi.db.lifecycles.subscribe({
    models: ['plugin::upload.file'],
    async afterDelete(event) {
      await strapi.plugin('image-api').service('images').removeForFile(event.result ?? {});
    },
  });
};
