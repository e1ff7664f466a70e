/** `/api/1/upload`: the upload action (docs/api.md, "Answers"). */
import type { Core } from '@strapi/strapi';
import { errors } from '../../services/contract/api-error';
import { imageJson } from '../../services/contract/image-json';
import { checkUploadParams } from '../../services/contract/request-params';
import { getConfig, getService } from '../../get-service';
import { answerSuccess } from './answers';
import type { ActionHandler } from './index';

export const uploadAction =
  (strapi: Core.Strapi): ActionHandler =>
  async (ctx, sent, state, format) => {
    const config = getConfig(strapi);
    const params = checkUploadParams(sent, config);
    const key = await getService(strapi, 'access').authenticate(params.key, ctx.request.ip);
    ctx.set(await getService(strapi, 'rate-limits').chargeKey(key));
    if (!params.source) throw errors.emptySource();
    // A GET's parameters are in its URL, which mangles base64 and cuts it short.
    if (params.source.kind === 'base64' && ctx.method === 'GET') throw errors.base64ViaGet();
    const image = await getService(strapi, 'upload').upload({ ...params, source: params.source }, key, state.scope);
    answerSuccess(ctx, format, {
      message: 'image uploaded',
      json: { image: imageJson(image, config.timeZone) },
      text: image.url,
      location: image.viewerUrl,
    });
  };
