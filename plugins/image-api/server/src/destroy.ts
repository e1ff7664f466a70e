import type { Core } from '@strapi/strapi';
import { getService } from './get-service';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await getService(strapi, 'rate-limits').disconnect();
};
