import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { errors } from '@strapi/utils';
import { parseRateLimit } from './config/rate-limit';
import { redactKeysInRequestLog } from './middlewares/log-redaction';
import { scopeMiddlewaresToUploadRoutes } from './middlewares/route-scope';
import { generateKey } from './services/keys/api-keys';
import { applyHeapGrowth } from './services/runtime/heap-growth';
import { configureImageWork } from './services/images/image-work';
import { restrictDecoders } from './services/images/image-decoders';
import { getService, getConfig } from './get-service';
import { API_KEY_UID, FILE_UID, IMAGE_UID, PLUGIN_ID, SITE_USER_UID, VIEWER_PATH } from './constants';

const SECRET_FIELDS = ['key_hash', 'key_encrypted'];

function withoutSecrets(value: unknown): void {
  if (Array.isArray(value)) value.forEach(withoutSecrets);
  else if (value && typeof value === 'object') {
    for (const field of SECRET_FIELDS) delete (value as Record<string, unknown>)[field];
    const entries = (value as { entries?: unknown }).entries;
    if (entries) withoutSecrets(entries);
  }
}

/**
 * A key entry's own rate limit must parse as the option does, or the entry is not saved. The error
 * names the field as Strapi's own validation does, so the admin panel shows it on the field.
 */
function checkRateLimit(data: Record<string, unknown> | undefined): void {
  const value = data?.rate_limit;
  if (typeof value !== 'string') return;
  try {
    parseRateLimit(value);
  } catch (error) {
    const message = `Rate limit: ${(error as Error).message}`;
    throw new errors.ValidationError(message, { errors: [{ path: ['rate_limit'], message, name: 'ValidationError', value }] });
  }
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  scopeMiddlewaresToUploadRoutes(strapi);
  redactKeysInRequestLog(strapi);
  // Process-wide settings, before anything uses sharp or allocates much.
  restrictDecoders(getConfig(strapi).blockUnusedDecoders);
  applyHeapGrowth(getConfig(strapi).heapGrowingPercent);
  configureImageWork(getConfig(strapi).imageConcurrency, getConfig(strapi).sharpThreads);

  // Keys and images may belong to a users-permissions user too, when that plugin is installed.
  if (strapi.plugin('users-permissions')) {
    for (const uid of [API_KEY_UID, IMAGE_UID]) {
      strapi.get('content-types').extend(uid, (contentType: { attributes: Record<string, unknown> }) => {
        contentType.attributes.owner_user = {
          type: 'relation',
          relation: 'manyToOne',
          target: SITE_USER_UID,
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
      handler: (ctx: Context, next: Next) => strapi.plugin(PLUGIN_ID).controller('viewer').show(ctx, next),
      config: { auth: false },
    },
  ]);

  strapi.db.lifecycles.subscribe({
    models: [FILE_UID],
    // Deleting a file in the Media Library deletes its image record (the provider files go with the file).
    async afterDelete(event) {
      await getService(strapi, 'images').removeForFile(event.result ?? {});
    },
  });

  // The hash and the encrypted key never leave the server, not even to the admin panel (which shows
  // `private` fields): documents of the key type come out of the document service without them.
  strapi.documents.use(async (context, next) => {
    const result = await next();
    if (context.uid === API_KEY_UID) withoutSecrets(result);
    return result;
  });

  strapi.db.lifecycles.subscribe({
    models: [API_KEY_UID],
    // Any change to a key entry applies to the next request on this instance.
    afterUpdate: () => getService(strapi, 'api-keys').forgetCached(),
    afterUpdateMany: () => getService(strapi, 'api-keys').forgetCached(),
    afterDelete: () => getService(strapi, 'api-keys').forgetCached(),
    afterDeleteMany: () => getService(strapi, 'api-keys').forgetCached(),
    beforeUpdate: (event) => checkRateLimit(event.params.data),
    beforeUpdateMany: (event) => checkRateLimit(event.params.data),
    // An entry created in the Content Manager gets its key here, on the server.
    beforeCreate(event) {
      const data = event.params.data as Record<string, unknown>;
      checkRateLimit(data);
      if (!data.key_hash) Object.assign(data, getService(strapi, 'api-keys').keyColumns(generateKey()));
      data.upload_count ??= 0;
    },
  });
};
