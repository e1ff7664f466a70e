/**
 * Turns the bodies of the upload routes into text fields and `source`/`image` parts, with limits
 * that fit the image limit (Strapi's body parser refuses urlencoded bodies over 56 KB, and
 * formidable mangles parts without a Content-Type): multipart (multipart.ts), urlencoded and JSON
 * (form.ts). The bytes go into buffers lent by the request's scope, given back when the request
 * ends, whatever happened. Nothing else is decided here.
 * A refused body is not answered here: the error is left in `ctx.state.imageApi.bodyError` so the
 * controller answers it in the client's format.
 */
import type { Context, Next } from 'koa';
import { ApiError, errors } from '../../http/api-error';
import { BufferPool } from '../../http/buffer-pool';
import { busyWithImages } from '../../operations/idle-collection';
import { openRequestScope, type RequestScope } from '../../http/request-scope';
import { watchBody, type StallLimits } from '../../http/stall-watch';
import { createTempFolders } from '../../http/temp-folders';
import { endAfterBody } from '../../http/end-after-body';
import { EMPTY_BODY, maxBodyBytes, type BodyLimits, type ParsedBody } from './body';
import { parseTextBody } from './form';
import { parseMultipart } from './multipart';

export { bodyLimitsFor, maxBodyBytes, type BodyLimits } from './body';

/** What the upload routes find in `ctx.state.imageApi`. */
export interface UploadRequestState {
  /** What the request holds until it ends (lent buffers, a temp folder). */
  scope: RequestScope;
  /** The body's fields and parts; empty when there was no body, or it was refused. */
  body: ParsedBody;
  /** Why the body was refused, to be answered in the client's format. */
  bodyError: ApiError | null;
}

/** What the body middleware works to, read per request. */
export interface BodySettings {
  limits: BodyLimits;
  tmpRoot: string;
  /** When a body that stalls, or has not arrived by its deadline, is cut (408). */
  stall: StallLimits;
}

/** Reads the body, unless it stalls first (see http/stall-watch.ts): then the body is cut with a 408. */
async function parseWatched(ctx: Context, parse: () => Promise<ParsedBody>, stall: StallLimits): Promise<ParsedBody> {
  const parsing = parse();
  const watch = watchBody(ctx.req, stall, errors.bodyStalled, errors.bodyTooSlow);
  try {
    return await Promise.race([parsing, watch.stalled]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 408) {
      // The parser settles once the socket is gone; nobody waits for it.
      parsing.catch(() => undefined);
      // Answered, then the connection closed: the rest of a stalled body is not waited for.
      ctx.set('Connection', 'close');
      ctx.res.once('finish', () => ctx.req.socket?.destroy());
    }
    throw error;
  } finally {
    watch.stop();
  }
}

/** The body middleware of the upload routes (see the file comment); `settingsOf` is read per request. */
export function uploadBody(settingsOf: () => BodySettings) {
  // Sized for typical images: bigger parts get buffers of their own.
  const pool = new BufferPool({ minBytes: 256 * 1024, maxBytes: 32 * 1024 * 1024, maxIdleBytes: 32 * 1024 * 1024 });
  const folders = createTempFolders();
  return async (ctx: Context, next: Next) => {
    const { limits, tmpRoot, stall } = settingsOf();
    const scope = openRequestScope({ pool, folders, tmpRoot });
    // What the request leaves (its body, the files it made) is collected once the process is quiet.
    const done = busyWithImages();
    const state: UploadRequestState = { scope, body: EMPTY_BODY, bodyError: null };
    ctx.state.imageApi = state;
    try {
      try {
        const declared = Number(ctx.get('content-length'));
        // A body declared bigger than any acceptable one is refused before a byte is read.
        if (Number.isFinite(declared) && declared > maxBodyBytes(limits)) {
          throw errors.tooBig(limits.maxBytes);
        }
        if (['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
          if (ctx.is('multipart')) state.body = await parseWatched(ctx, () => parseMultipart(ctx, limits, scope.borrow), stall);
          else if (ctx.is('json', 'urlencoded')) state.body = await parseWatched(ctx, () => parseTextBody(ctx, limits, scope.borrow), stall);
        }
      } catch (error) {
        state.bodyError = error instanceof ApiError ? error : errors.badRequest('Malformed request body');
        // Parsing stops here and the answer goes out now. The unread rest of the body is discarded
        // as it arrives (never stored), and the connection closes only after it: closing the socket
        // on unread data would reset it and could cost the client the answer.
        if (state.bodyError.status !== 408) endAfterBody(ctx.req, ctx.res, stall.windowMs);
      }
      await next();
    } finally {
      // The request's context may outlive it: an async resource made while it ran (a database
      // connection opened for it, the BMP or HEIC worker's port) keeps Strapi's request context,
      // and so this state, for its own life. Measured: a 16 MB body buffer stayed after each BMP
      // batch that way. It keeps no bytes now.
      state.body = EMPTY_BODY;
      try {
        // Everything that read the parts (image work, provider writes) has settled by now.
        await scope.end();
      } finally {
        done();
      }
    }
  };
}
