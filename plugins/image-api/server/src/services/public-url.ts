/** Absolute URLs the API hands out, on the configured public base URL. */
import type { Core } from '@strapi/strapi';

export const VIEWER_PATH = '/image';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  base(): string {
    const configured: string | null = strapi.plugin('image-api').config('publicUrl');
    const server: string | undefined = strapi.config.get('server.url');
    const fallback = `http://localhost:${strapi.config.get('server.port') ?? 1337}`;
    const base = configured || (server && /^https?:\/\//.test(server) ? server : fallback);
    return base.replace(/\/+$/, '');
  },
  viewer(idEncoded: string): string {
    return `${this.base()}${VIEWER_PATH}/${idEncoded}`;
  },
});
