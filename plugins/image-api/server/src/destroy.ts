import type { Core } from '@strapi/strapi';
import { getService } from './get-service';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await getService(strapi, 'expiry-sweep').stop();
  await getService(strapi, 'rate-limits').disconnect();
};
