import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { parseRateLimit } from './config/rate-limit';
import { redactKeysInRequestLog } from './middlewares/log-redaction';
import { scopeMiddlewaresToUploadRoutes } from './middlewares/route-scope';
import { generateKey } from './services/api-keys';
import { applyHeapGrowth } from './services/heap-growth';
import { configureImageWork } from './services/image-work';
import { restrictDecoders } from './services/image-decoders';
import { VIEWER_PATH } from './services/public-url';

const KEY_UID = 'plugin::image-api.api-key';
const SECRET_FIELDS = ['key_hash', 'key_encrypted'];

function withoutSecrets(value: unknown): void {
  if (Array.isArray(value)) value.forEach(withoutSecrets);
  else if (value && typeof value === 'object') {
    for (const field of SECRET_FIELDS) delete (value as Record<string, unknown>)[field];
    const entries = (value as { entries?: unknown }).entries;
    if (entries) withoutSecrets(entries);
  }
}
const IMAGE_UID = 'plugin::image-api.image';

/** A key entry's own rate limit must parse as the option does, or the entry is not saved. */
function checkRateLimit(data: Record<string, unknown> | undefined): void {
  const value = data?.rate_limit;
  if (typeof value !== 'string') return;
  try {
    parseRateLimit(value);
  } catch (error) {
    throw new errors.ValidationError(`Rate limit: ${(error as Error).message}`);
  }
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  scopeMiddlewaresToUploadRoutes(strapi);
  redactKeysInRequestLog(strapi);
  // Process-wide settings, before anything uses sharp or allocates much.
  restrictDecoders(strapi.plugin('image-api').config('blockUnusedDecoders'));
  applyHeapGrowth(strapi.plugin('image-api').config('heapGrowingPercent'));
  configureImageWork(strapi.plugin('image-api').config('imageConcurrency'), strapi.plugin('image-api').config('sharpThreads'));

  // Keys and images may belong to a users-permissions user too, when that plugin is installed.
  if (strapi.plugin('users-permissions')) {
    for (const uid of [KEY_UID, IMAGE_UID]) {
      strapi.get('content-types').extend(uid, (contentType: { attributes: Record<string, unknown> }) => {
        contentType.attributes.owner_user = {
          type: 'relation',
          relation: 'manyToOne',
          target: 'plugin::users-permissions.user',
          configurable: false,
        };
      });
    }
  }

  // The viewer page lives outside the /api prefix.
  strapi.server.routes([
    {
      method: 'GET',
      path: `${VIEWER_PATH}/:id`,
      handler: (ctx: any, next: any) => strapi.plugin('image-api').controller('viewer').show(ctx, next),
      config: { auth: false },
    },
  ]);

  strapi.db.lifecycles.subscribe({
    models: ['plugin::upload.file'],
    // Deleting a file in the Media Library deletes its image record (the provider files go with the file).
    async afterDelete(event) {
      await strapi.plugin('image-api').service('images').removeForFile(event.result ?? {});
    },
  });

  // The hash and the encrypted key never leave the server, not even to the admin panel (which shows
  // `private` fields): documents of the key type come out of the document service without them.
  strapi.documents.use(async (context, next) => {
    const result = await next();
    if (context.uid === KEY_UID) withoutSecrets(result);
    return result;
  });

  strapi.db.lifecycles.subscribe({
    models: [KEY_UID],
    // Any change to a key entry applies to the next request on this instance.
    afterUpdate: () => strapi.plugin('image-api').service('api-keys').forgetCached(),
    afterUpdateMany: () => strapi.plugin('image-api').service('api-keys').forgetCached(),
    afterDelete: () => strapi.plugin('image-api').service('api-keys').forgetCached(),
    afterDeleteMany: () => strapi.plugin('image-api').service('api-keys').forgetCached(),
    beforeUpdate: (event) => checkRateLimit(event.params.data),
    beforeUpdateMany: (event) => checkRateLimit(event.params.data),
    // An entry created in the Content Manager gets its key here, on the server.
    beforeCreate(event) {
      const data = event.params.data as Record<string, unknown>;
      checkRateLimit(data);
      if (!data.key_hash) Object.assign(data, strapi.plugin('image-api').service('api-keys').material(generateKey()));
      data.upload_count ??= 0;
    },
  });
};
