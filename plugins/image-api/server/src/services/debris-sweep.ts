/**
 * The boot sweep: what a crash can leave behind is removed when the app starts again, i.e. provider
 * files of uploads that never got their records (see the pending-upload journal). Only debris older
 * than `sweepAfterMs` is touched, so uploads in flight on other instances are safe. (Requests write
 * nothing else anywhere: bodies and downloads stay in memory.)
 */
import type { Core } from '@strapi/strapi';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async run(): Promise<{ uploads: number }> {
    const plugin = strapi.plugin('image-api');
    const uploads: number = await plugin.service('media-store').sweep(plugin.config('sweepAfterMs'));
    if (uploads) strapi.log.info(`image-api: swept ${uploads} unfinished upload(s)`);
    return { uploads };
  },
});
