/** `/api/1/albums`: the Media Library folders a key may upload to (docs/api.md, "Albums"); always JSON. */
import type { Core } from '@strapi/strapi';
import { checkAlbumsParams } from '../protocol/request-params';
import { getService } from '../get-service';
import { answerSuccess } from '../protocol/answers';
import type { ActionHandler } from './action';

export const albumsAction =
  (strapi: Core.Strapi): ActionHandler =>
  async (ctx, sent) => {
    const params = checkAlbumsParams(sent);
    const key = await getService(strapi, 'access').authenticate(params.key, ctx.req);
    const albums = await getService(strapi, 'media-folder').albumsOf(key.folderId);
    const json = { albums: albums.map(({ id, name, path, imageCount }) => ({ id, name, path, image_count: imageCount })) };
    ctx.set('Cache-Control', 'no-store');
    answerSuccess(ctx, 'json', { message: 'albums', json, text: '' });
  };
