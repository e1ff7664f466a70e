/**
 * A small text body (a form's fields, or JSON) on a route that Strapi's parser leaves alone
 * (http-entries.ts: `leaveBodyToRoute`), read only up to `maxBytes`. One declared longer is refused
 * before a byte is read; one that says nothing (chunked) is cut off at the first byte past it; one
 * that has not arrived whole within `waitMs` (a few KB: a client holding the connection) is 408
 * and the connection closed (readTextBody: a larger text, with limits of its own). Refused before
 * its end, the rest is discarded as it arrives and the response ends after it (end-after-body.ts),
 * so the client reads its 413 rather than a reset.
 */
import coBody from 'co-body';
import qs from 'qs';
import type { Context } from 'koa';
import { ApiError, errors } from './api-error';
import { endAfterBody } from './end-after-body';
import { watchBody, type StallLimits } from './stall-watch';

export type SmallBody = Record<string, unknown>;

/** Requests whose body Strapi's parser did not read: the route reads it (readSmallBody). */
const leftToRoute = new WeakSet<object>();

/** Called where Strapi's body parser would run (http-entries.ts), for the paths whose route reads its own body. */
export const leaveBodyToRoute = (ctx: Context) => leftToRoute.add(ctx.req);

/** The fields of a urlencoded or JSON body; 413 past `maxBytes`, 408 past `waitMs`, 400 for anything else. */
export async function readSmallBody(ctx: Context, maxBytes: number, waitMs: number): Promise<SmallBody> {
  const json = Boolean(ctx.is('json'));
  const text = await readBody(ctx, maxBytes, { windowMs: waitMs, minBytesPerSecond: 0, deadlineMs: waitMs }, () =>
    json || ctx.is('urlencoded') ? null : 'Malformed request body: send a form (application/x-www-form-urlencoded) or JSON'
  );
  if (!json) return qs.parse(text, { depth: 0, parameterLimit: 20 }) as SmallBody;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as SmallBody) : {};
  } catch {
    throw errors.badRequest('Malformed request body');
  }
}

/**
 * A text body up to `maxBytes` (megabytes: an admin's hash list), as sent: plain text (`text/plain`,
 * UTF-8), or JSON (`json`: true; the admin's fetch client sends JSON only), parsed by the caller.
 * 413 past it, 408 when no byte came for `limits.windowMs` or it had not arrived by `limits.deadlineMs`.
 */
export async function readTextBody(ctx: Context, maxBytes: number, limits: StallLimits): Promise<{ text: string; json: boolean }> {
  const json = Boolean(ctx.is('json'));
  const text = await readBody(ctx, maxBytes, limits, () => (json || ctx.is('text/plain') ? null : 'Malformed request body: send text/plain or JSON'));
  return { text, json };
}

/** The body as text, read as the file comment says; `refusal` names a content type not taken. */
async function readBody(ctx: Context, maxBytes: number, limits: StallLimits, refusal: () => string | null): Promise<string> {
  // The router and http-entries.ts disagree on a path: a bug, never a body read twice.
  if (!leftToRoute.has(ctx.req)) throw new Error('image-api: a small body was read by Strapi\'s parser first');
  const waitMs = limits.windowMs;
  const refuse = (error: ApiError) => {
    endAfterBody(ctx.req, ctx.res, waitMs);
    return error;
  };
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw refuse(errors.bodyTooLarge(maxBytes));
  const refused = refusal();
  if (refused) throw refuse(errors.badRequest(refused));

  const reading = coBody.text(ctx, { limit: maxBytes, encoding: 'utf8' }) as Promise<string>;
  const watch = watchBody(ctx.req, limits, errors.bodyStalled, errors.bodyTooSlow);
  try {
    return await Promise.race([reading, watch.stalled]);
  } catch (error) {
    if (error instanceof ApiError) {
      reading.catch(() => undefined);
      // Answered, then the connection closed: the rest of a stalled body is not waited for.
      ctx.set('Connection', 'close');
      ctx.res.once('finish', () => ctx.req.socket?.destroy());
      throw error;
    }
    if ((error as { status?: number }).status === 413) throw refuse(errors.bodyTooLarge(maxBytes));
    throw refuse(errors.badRequest('Malformed request body'));
  } finally {
    watch.stop();
  }
}
