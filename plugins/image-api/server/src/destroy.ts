import type { Core } from '@strapi/strapi';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await strapi.plugin('image-api').service('rate-limits').disconnect();
};
