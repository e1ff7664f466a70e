/**
 * Pages outside the API (docs/api.md, "Routes" and "Deleting an image"):
 * - `GET /image/<id_encoded>`, the viewer: counts the view, shows the image with unfurl tags (an
 *   NSFW image only once asked: `?show=1`, which counts no second view); a held image is 404;
 * - `POST /image/<id_encoded>/report`, a viewer's report (moderation/reports.ts): a form's post is
 *   answered 303 back to the viewer, which thanks the reporter; JSON with the API's JSON. A report
 *   not kept (a repeat, an image past its bound) is answered as one that is;
 * - `/image/<id_encoded>/delete/<secret>`, the delete link: GET shows a confirmation page and never
 *   deletes (chat unfurlers and mail scanners fetch links); POST or DELETE deletes. A wrong secret,
 *   an unknown, deleted or expired image: 404, and nothing deleted. A browser gets HTML; a request
 *   that asks for JSON (Accept, or the DELETE method) gets the API's JSON.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { errorBody, errors, isApiError, type ApiError } from '../http/api-error';
import { outageAnswer } from '../http/outages';
import { sameDigest } from '../keys/api-keys';
import { deleteHashOf } from '../storage/image-records';
import { VIEWER_PATH } from '../config/constants';
import { successBody } from '../protocol/answers';
import { readSmallBody } from '../http/small-body';
import { clientAddress } from '../http/client-address';
import { endAfterBody } from '../http/end-after-body';
import { REPORT_BODY_BYTES, reportInputOf } from '../moderation/report-input';
import { getConfig, getService } from '../get-service';
import { confirmDeletePage, deletedPage, notFoundPage, reportRefusedPage, unavailablePage, viewerPage } from './page-html';

const ID = /^[A-Za-z0-9]{1,12}$/;
const SECRET = /^[A-Za-z0-9]{32,64}$/;

const wantsJson = (ctx: Context) => ctx.method === 'DELETE' || ctx.accepts('html', 'json') === 'json';
/** A report sent as JSON is answered in JSON; a form's, with pages. */
const reportWantsJson = (ctx: Context) => Boolean(ctx.is('json')) || ctx.accepts('html', 'json') === 'json';
/** A query flag: present and not "0". */
const flag = (value: unknown) => typeof value === 'string' && value !== '' && value !== '0';

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
      // "Show" on an NSFW image's first view: that view was counted.
      const show = flag(ctx.query.show);
      const counted = ID.test(id) && (show || (await images.countView(id)));
      const found = counted ? await images.findForViewer(id) : null;
      if (!found?.file) return answerHtml(ctx, 404, notFoundPage());
      if (!show) {
        await getService(strapi, 'usage-tally')
          .view(found.apiKeyId)
          .catch((error: Error) => strapi.log.warn(`image-api: a view was not tallied: ${error.message}`));
      }
      ctx.set('Cache-Control', 'no-cache');
      answerHtml(ctx, 200, viewerPage(found, publicUrl().base(), publicUrl().viewer(id), { show, reported: flag(ctx.query.reported) }));
    }),

    report: async (ctx: Context) => {
      const id = String(ctx.params.id ?? '');
      const viewerUrl = publicUrl().viewer(id);
      const json = reportWantsJson(ctx);
      try {
        if (!ID.test(id)) {
          endAfterBody(ctx.req, ctx.res, getConfig(strapi).bodyIdleTimeoutMs);
          throw errors.imageNotFound();
        }
        const input = reportInputOf(await readSmallBody(ctx, REPORT_BODY_BYTES, getConfig(strapi).bodyIdleTimeoutMs));
        const address = clientAddress(ctx.req, getConfig(strapi).trustedProxies);
        const { headers } = await getService(strapi, 'reports').submit(id, input, address);
        for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
        ctx.set('Cache-Control', 'no-store');
        if (json) {
          ctx.type = 'application/json; charset=utf-8';
          ctx.body = successBody('report received');
        } else {
          ctx.status = 303;
          ctx.redirect(`${viewerUrl}?reported=1`);
        }
      } catch (error) {
        let answer: ApiError | null = isApiError(error) ? error : outageAnswer(error);
        if (!answer) {
          strapi.log.error(`image-api: POST ${VIEWER_PATH}/.../report: ${(error as Error)?.stack ?? error}`);
          answer = errors.internal();
        }
        for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
        ctx.set('Cache-Control', 'no-store');
        if (json) {
          ctx.status = answer.status;
          ctx.type = 'application/json; charset=utf-8';
          ctx.body = errorBody(answer);
        } else if (answer.status === 404) answerHtml(ctx, 404, notFoundPage());
        else answerHtml(ctx, answer.status, reportRefusedPage(answer.message, new URL(viewerUrl).pathname));
      }
    },

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
