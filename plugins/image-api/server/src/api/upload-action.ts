/** `/api/1/upload`: the upload action (docs/api.md, "Answers" and "Retrying an upload"). */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { errors } from '../http/api-error';
import { imageJson, type StoredImage } from '../protocol/image-json';
import { imgbbJson } from '../protocol/imgbb-json';
import { checkUploadParams, type Format } from '../protocol/request-params';
import { isValidIdempotencyKey } from '../storage/idempotency';
import { isUniqueViolation } from '../database/unique-violation';
import { getConfig, getService } from '../get-service';
import { answerSuccess } from '../protocol/answers';
import { uploadDialect, type ActionHandler, type Dialect } from './action';

/** The Idempotency-Key header, checked; null without one. */
function idempotencyKeyOf(ctx: Context): string | null {
  const value = ctx.get('Idempotency-Key');
  if (value === '') return null;
  if (!isValidIdempotencyKey(value)) throw errors.idempotencyKey();
  return value;
}

export const uploadAction = (strapi: Core.Strapi): ActionHandler => {
  const answer = (ctx: Context, format: Format, dialect: Dialect, image: StoredImage, replayed: boolean) => {
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    answerSuccess(ctx, format, {
      message: 'image uploaded',
      json: { image: imageJson(image, getConfig(strapi).timeZone) },
      whole: dialect === 'imgbb' ? imgbbJson(image) : undefined,
      text: image.url,
      location: image.viewerUrl,
    });
  };

  return async (ctx, sent, state, format, route) => {
    const dialect = uploadDialect(route, sent);
    const config = getConfig(strapi);
    const params = checkUploadParams(sent, config);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const key = await getService(strapi, 'access').authenticate(params.key, ctx.req);
    const idempotency = getService(strapi, 'idempotency');
    const scope = idempotencyKey === null ? null : { apiKeyId: key.id, key: idempotencyKey };
    // A repeated request: the first upload's answer, stored nothing and charged nothing.
    const earlier = scope && (await idempotency.find(scope));
    if (earlier) return answer(ctx, format, dialect, earlier, true);

    const rateLimits = getService(strapi, 'rate-limits');
    ctx.set(await rateLimits.chargeKey(key));
    let stored = false;
    try {
      if (!params.source) throw errors.emptySource();
      // A GET's parameters are in its URL, which mangles base64 and cuts it short.
      if (params.source.kind === 'base64' && ctx.method === 'GET') throw errors.base64ViaGet();
      try {
        const image = await getService(strapi, 'upload').upload({ ...params, source: params.source }, key, state.scope, idempotencyKey);
        stored = true;
        answer(ctx, format, dialect, image, false);
      } catch (error) {
        // A twin request with the same Idempotency-Key was recorded first: its answer is this one's.
        const winner = scope && isUniqueViolation(error) ? await idempotency.find(scope) : null;
        if (!winner) throw error;
        answer(ctx, format, dialect, winner, true);
      }
    } finally {
      // Only stored uploads count against the key's budget: a refusal or a failure gives its charge back.
      if (!stored) await rateLimits.refundKey(key);
    }
  };
};
