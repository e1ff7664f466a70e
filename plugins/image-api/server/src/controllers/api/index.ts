/** `/api/<version>/<action>`: reads the request, runs the upload service, answers in the asked format. */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { ApiError, errorBody, errors, isApiError } from '../services/contract/api-error';
import { imageJson } from '../services/contract/image-json';
import { answerFormat, checkParams, gatherParams, type Format } from '../services/contract/request-params';
import type { UploadRequestState } from '../middlewares/upload-body';
import { getService, getConfig } from '../get-service';

function answerError(ctx: Context, error: ApiError, format: Format) {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  if (format === 'json') {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = errorBody(error);
  } else {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = error.message;
  }
}

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async handle(ctx: Context) {
    const state = ctx.state.imageApi as UploadRequestState | undefined;
    // Until the body is read, errors answer as the query asks (JSON unless it asks for a valid format).
    let format: Format = answerFormat(ctx.query.format);
    try {
      if (!state) throw new Error('the upload body middleware did not run (keep strapi::body in config/middlewares.ts)');
      if (state.bodyError) throw state.bodyError;
      if (ctx.params.version !== '1') throw errors.badVersion();
      if (String(ctx.params.action ?? '').replace(/\/$/, '') !== 'upload') throw errors.badAction();
      if (ctx.method !== 'GET' && ctx.method !== 'POST') {
        ctx.set('Allow', 'GET, POST, OPTIONS');
        throw errors.methodNotAllowed();
      }

      const sent = gatherParams(ctx, state.body);
      format = answerFormat(sent.format);
      const params = checkParams(sent);

      const uploads = getService(strapi, 'upload');
      const { key, headers } = await uploads.authorize(params.key, ctx.request.ip);
      ctx.set(headers);
      if (!params.source) throw errors.emptySource();
      // A GET's parameters are in its URL, which mangles base64 and cuts it short.
      if (params.source.kind === 'base64' && ctx.method === 'GET') throw errors.base64ViaGet();
      const image = await uploads.upload({ ...params, source: params.source }, key, state.scope);

      if (format === 'redirect') {
        ctx.status = 302;
        ctx.set('Location', image.viewerUrl);
        ctx.body = '';
      } else if (format === 'txt') {
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = image.url;
      } else {
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = {
          status_code: 200,
          success: { message: 'image uploaded', code: 200 },
          image: imageJson(image, getConfig(strapi).timeZone),
          status_txt: 'OK',
        };
      }
    } catch (error) {
      if (!isApiError(error)) strapi.log.error(`image-api: upload failed: ${(error as Error)?.stack ?? error}`);
      answerError(ctx, isApiError(error) ? error : errors.internal(), format);
    }
  },
});
