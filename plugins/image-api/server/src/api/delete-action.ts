/**
 * `/api/1/delete`: deletes an image uploaded with the key, or with another key of the same owner
 * (docs/api.md, "Deleting an image"). Any other image answers exactly as an unknown one: 404.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '../http/api-error';
import { checkDeleteParams } from '../protocol/request-params';
import type { AuthenticatedKey } from '../keys/api-keys';
import type { ImageForRemoval } from '../storage/image-records';
import { getService } from '../get-service';
import { answerSuccess } from '../protocol/answers';
import type { ActionHandler } from './action';

/** Uploaded with this key, or with a key of the same admin or site user. */
const mayDelete = (key: AuthenticatedKey, image: ImageForRemoval) =>
  image.apiKeyId === key.id ||
  (key.adminOwnerId !== null && image.adminOwnerId === key.adminOwnerId) ||
  (key.siteUserOwnerId !== null && image.siteUserOwnerId === key.siteUserOwnerId);

export const deleteAction =
  (strapi: Core.Strapi): ActionHandler =>
  async (ctx, sent, _state, format) => {
    const params = checkDeleteParams(sent);
    const key = await getService(strapi, 'access').authenticate(params.key, ctx.req);
    const image = /^[A-Za-z0-9]{1,12}$/.test(params.id) ? await getService(strapi, 'images').findForRemoval(params.id) : null;
    if (!image || !mayDelete(key, image)) throw errors.imageNotFound();
    await getService(strapi, 'image-removal').remove([image], 'api');
    answerSuccess(ctx, format, { message: 'image deleted', text: 'deleted' });
  };
