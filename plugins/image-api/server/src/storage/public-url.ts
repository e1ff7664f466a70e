/** Absolute URLs the API hands out, on the configured public base URL. */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../get-service';
import { VIEWER_PATH } from '../config/constants';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  base(): string {
    const configured: string | null = getConfig(strapi).publicUrl;
    const server: string | undefined = strapi.config.get('server.url');
    const fallback = `http://localhost:${strapi.config.get('server.port') ?? 1337}`;
    const base = configured || (server && /^https?:\/\//.test(server) ? server : fallback);
    return base.replace(/\/+$/, '');
  },
  /** A stored file's URL as the API hands it out: the provider's own when absolute (S3), else on the base. */
  fileUrl(url: string): string {
    return /^https?:\/\//i.test(url) ? url : `${this.base()}${url.startsWith('/') ? '' : '/'}${url}`;
  },
  viewer(idEncoded: string): string {
    return `${this.base()}${VIEWER_PATH}/${idEncoded}`;
  },
  /** The delete link: the viewer's URL, then `/delete/<secret>`. */
  deleteLink(idEncoded: string, secret: string): string {
    return `${this.viewer(idEncoded)}/delete/${secret}`;
  },
});
