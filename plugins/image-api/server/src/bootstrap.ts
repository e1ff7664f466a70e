import type { Core } from '@strapi/strapi';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = strapi.plugin('image-api');
  // Created at boot so the first concurrent uploads do not race to create it.
  await plugin.service('media-folder').get();
  await plugin.service('rate-limits').connect();
  await plugin.service('debris-sweep').run();

  const bootstrapKey: string | null = plugin.config('bootstrapKey');
  if (bootstrapKey) await plugin.service('api-keys').ensure(bootstrapKey);
};
