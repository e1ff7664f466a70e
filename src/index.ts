import type { Core } from '@strapi/strapi';

// The host app adds nothing of its own: the image API is the plugin in plugins/image-api.
export default {
  register(/* { strapi }: { strapi: Core.Strapi } */) {},
  bootstrap(/* { strapi }: { strapi: Core.Strapi } */) {},
} satisfies Record<string, (ctx: { strapi: Core.Strapi }) => void>;
