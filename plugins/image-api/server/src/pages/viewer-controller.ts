/**
 * Pages outside the API (docs/api.md, "Routes" and "Deleting an image"):
 * - `GET /image/<id_encoded>`, the viewer: counts the view, shows the image with unfurl tags;
 * - `/image/<id_encoded>/delete/<secret>`, the delete link: GET shows a confirmation page and never
 *   deletes (chat unfurlers and mail scanners fetch links); POST or DELETE deletes. A wrong secret,
 *   an unknown, deleted or expired image: 404, and nothing deleted. A browser gets HTML; a request
 *   that asks for JSON (Accept, or the DELETE method) gets the API's JSON.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { errorBody, errors, type ApiError } from '../http/api-error';
import { outageAnswer } from '../http/outages';
import { sameDigest } from '../keys/api-keys';
import { deleteHashOf } from '../storage/image-records';
import { getService } from '../get-service';
import { VIEWER_PATH } from '../config/constants';
import { successBody } from '../protocol/answers';
import { confirmDeletePage, deletedPage, notFoundPage, unavailablePage, viewerPage } from './page-html';

const ID = /^[A-Za-z0-9]{1,12}$/;
const SECRET = /^[A-Za-z0-9]{32,64}$/;

const wantsJson = (ctx: Context) => ctx.method === 'DELETE' || ctx.accepts('html', 'json') === 'json';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const publicUrl = () => getService(strapi, 'public-url');

  function answerHtml(ctx: Context, status: number, html: string) {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  }

  function answerNotFound(ctx: Context) {
    if (wantsJson(ctx)) {
      ctx.status = 404;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = errorBody(errors.imageNotFound());
    } else answerHtml(ctx, 404, notFoundPage());
  }

  /** The image a delete link names, when its secret is the right one; else null. */
  async function imageOfLink(ctx: Context) {
    const { id, secret } = ctx.params as { id?: string; secret?: string };
    if (!id || !secret || !ID.test(id) || !SECRET.test(secret)) return null;
    const image = await getService(strapi, 'images').findForRemoval(id);
    if (!image?.deleteHash || !sameDigest(deleteHashOf(secret), image.deleteHash)) return null;
    return image;
  }

  /**
   * A database outage or a full disk answers 503/507, anything else 500 (logged), as HTML or, when
   * asked, in the API's error shape: never Strapi's own error body, never a stack trace.
   */
  const guarded =
    (handler: (ctx: Context) => Promise<void>) =>
    async (ctx: Context): Promise<void> => {
      try {
        await handler(ctx);
      } catch (error) {
        let answer: ApiError | null = outageAnswer(error);
        if (!answer) {
          strapi.log.error(`image-api: ${ctx.method} ${VIEWER_PATH}/...: ${(error as Error)?.stack ?? error}`);
          answer = errors.internal();
        }
        for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
        if (wantsJson(ctx)) {
          ctx.status = answer.status;
          ctx.type = 'application/json; charset=utf-8';
          ctx.body = errorBody(answer);
        } else answerHtml(ctx, answer.status, unavailablePage(answer.message));
      }
    };

  return {
    show: guarded(async (ctx: Context) => {
      const id = String(ctx.params.id ?? '');
      const images = getService(strapi, 'images');
      const found = ID.test(id) && (await images.countView(id)) ? await images.findForViewer(id) : null;
      if (!found?.file) return answerHtml(ctx, 404, notFoundPage());
      await getService(strapi, 'usage-tally')
        .view(found.apiKeyId)
        .catch((error: Error) => strapi.log.warn(`image-api: a view was not tallied: ${error.message}`));
      ctx.set('Cache-Control', 'no-cache');
      answerHtml(ctx, 200, viewerPage(found, publicUrl().base(), publicUrl().viewer(id)));
    }),

    confirmDelete: guarded(async (ctx: Context) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      const image = await imageOfLink(ctx);
      if (!image) return answerNotFound(ctx);
      answerHtml(ctx, 200, confirmDeletePage(image, publicUrl().base()));
    }),

    deleteByLink: guarded(async (ctx: Context) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      const image = await imageOfLink(ctx);
      if (!image) return answerNotFound(ctx);
      await getService(strapi, 'image-removal').remove([image], 'delete-link');
      if (!wantsJson(ctx)) return answerHtml(ctx, 200, deletedPage());
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = successBody('image deleted');
    }),
  };
};
