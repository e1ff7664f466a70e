/**
 * Moderation's review in the admin panel (shared/contracts/review.ts, moderation/review.ts): the
 * queue, its thumbnails, approve, take down, block, the blocklist's counts and hash list imports.
 * Every route is behind `images.review` (routes/index.ts); the admin who acts is the one logged.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import Joi from 'joi';
import { getConfig, getService } from '../get-service';
import { isApiError } from '../http/api-error';
import { readTextBody } from '../http/small-body';
import { pageOf, type Reviewer } from './review';
import { BLOCK_KINDS, HASH_LIST_MAX_BYTES, TAKEDOWN_REASON_MAX, type BlockKind } from '../../../shared/contracts/review';

const reasonSchema = Joi.object({ reason: Joi.string().trim().min(1).max(TAKEDOWN_REASON_MAX).required() }).unknown(true);

/**
 * A hash list must arrive within this (10 MB at 100 KB/s), with no silence longer than the
 * option's `bodyIdleTimeoutMs`.
 */
const IMPORT_DEADLINE_MS = 100_000;

/** A takedown's reason from a JSON body, or null (the answer is a 400 already). */
function reasonOf(ctx: Context): string | null {
  const { value, error } = reasonSchema.validate(ctx.request.body ?? {});
  if (error) {
    ctx.badRequest(`A reason is required: at most ${TAKEDOWN_REASON_MAX} characters`);
    return null;
  }
  return value.reason as string;
}

/** The list of a JSON body `{ "text": "..." }`; null for any other JSON. */
function listOf(json: string): string | null {
  try {
    const parsed: unknown = JSON.parse(json);
    const text = (parsed as { text?: unknown } | null)?.text;
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const review = () => getService(strapi, 'review');
  const reviewerOf = (ctx: Context): Reviewer => ({ adminId: ctx.state.user?.id ?? 'unknown' });
  const idOf = (ctx: Context) => String(ctx.params.idEncoded);

  return {
    async queue(ctx: Context) {
      ctx.body = { data: await review().queue(pageOf(ctx.query)) };
    },

    /** The thumbnail's bytes, for reviewers only: never kept by a browser or a cache in between. */
    async thumbnail(ctx: Context) {
      const thumbnail = await review().thumbnail(idOf(ctx));
      if (!thumbnail) return ctx.notFound('No such image');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = thumbnail.mime;
      ctx.body = thumbnail.bytes;
    },

    async approve(ctx: Context) {
      if (!(await review().approve(idOf(ctx), reviewerOf(ctx)))) return ctx.notFound('No such image');
      ctx.body = { data: { idEncoded: idOf(ctx), moderation: 'approved' } };
    },

    async takedown(ctx: Context) {
      const reason = reasonOf(ctx);
      if (reason === null) return;
      if (!(await review().takedown(idOf(ctx), reason, reviewerOf(ctx)))) return ctx.notFound('No such image');
      ctx.body = { data: { idEncoded: idOf(ctx), takenDown: true } };
    },

    async block(ctx: Context) {
      const reason = reasonOf(ctx);
      if (reason === null) return;
      const added = await review().block(idOf(ctx), reason, reviewerOf(ctx));
      if (!added) return ctx.notFound('No such image');
      ctx.body = { data: { idEncoded: idOf(ctx), takenDown: true, blocked: added } };
    },

    async blocklist(ctx: Context) {
      ctx.body = { data: await review().counts() };
    },

    /**
     * `?kind=sha256|md5|pdq`; the body, HASH_LIST_MAX_BYTES at most as sent: the list as text/plain
     * (one hex hash a line), or JSON `{ "text": <the list> }` (the admin page's).
     */
    async importList(ctx: Context) {
      const kind = String(ctx.query.kind ?? '');
      if (!(BLOCK_KINDS as readonly string[]).includes(kind)) return ctx.badRequest(`kind must be one of ${BLOCK_KINDS.join(', ')}`);
      let text: string;
      try {
        const body = await readTextBody(ctx, HASH_LIST_MAX_BYTES, { windowMs: getConfig(strapi).bodyIdleTimeoutMs, minBytesPerSecond: 0, deadlineMs: IMPORT_DEADLINE_MS });
        if (body.json) {
          const list = listOf(body.text);
          if (list === null) return ctx.badRequest('Send the list as text/plain, or JSON { "text": <the list> }');
          text = list;
        } else text = body.text;
      } catch (error) {
        if (!isApiError(error)) throw error;
        // Answered as the admin's routes answer (Strapi's error shape), not the upload API's.
        for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
        ctx.status = error.status;
        ctx.body = { data: null, error: { status: error.status, name: 'RequestBodyError', message: error.message, details: {} } };
        return;
      }
      ctx.body = { data: { ...(await review().importList(kind as BlockKind, text, reviewerOf(ctx))), counts: await review().counts() } };
    },
  };
};
