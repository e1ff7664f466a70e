/**
 * Turns the bodies of the upload routes into text fields and `source`/`image` parts, with limits
 * that fit the image limit (Strapi's body parser refuses urlencoded bodies over 56 KB, and
 * formidable mangles parts without a Content-Type): multipart (multipart.ts), urlencoded and JSON
 * (form.ts). The bytes go into buffers lent by the request's scope, given back when the request
 * ends, whatever happened. Nothing else is decided here, and nothing is answered: a refused body
 * throws the error table's 400, 408 or 413, which the upload pipeline answers (api/upload-pipeline.ts).
 */
import type { Context } from 'koa';
import { ApiError, errors } from '../../http/api-error';
import { BufferPool } from '../../http/buffer-pool';
import { openRequestScope, type RequestScope } from '../../http/request-scope';
import { watchBody, type StallLimits } from '../../http/stall-watch';
import { createTempFolders } from '../../http/temp-folders';
import { EMPTY_BODY, maxBodyBytes, type BodyLimits, type ParsedBody } from './body';
import { parseTextBody } from './form';
import { parseMultipart } from './multipart';

export { bodyLimitsFor, maxBodyBytes, EMPTY_BODY, type BodyLimits, type ParsedBody } from './body';

/** What reading a body works to, read per request. */
export interface BodySettings {
  limits: BodyLimits;
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

/**
 * The upload routes' body reader: its pool of buffers (sized for typical images: bigger parts get
 * buffers of their own) and its temp folders live as long as the process.
 */
export function bodyReader() {
  const pool = new BufferPool({ minBytes: 256 * 1024, maxBytes: 32 * 1024 * 1024, maxIdleBytes: 32 * 1024 * 1024 });
  const folders = createTempFolders();
  return {
    /** What one request holds until it ends (lent buffers, a temp folder made on first use): `end()` it whatever happened. */
    openScope: (tmpRoot: string) => openRequestScope({ pool, folders, tmpRoot }),

    /**
     * The body's fields and parts (empty for a method without a body, or a type no parser reads).
     * A body declared bigger than any acceptable one is refused before a byte is read.
     */
    async read(ctx: Context, scope: RequestScope, { limits, stall }: BodySettings): Promise<ParsedBody> {
      try {
        const declared = Number(ctx.get('content-length'));
        if (Number.isFinite(declared) && declared > maxBodyBytes(limits)) throw errors.tooBig(limits.maxBytes);
        if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return EMPTY_BODY;
        if (ctx.is('multipart')) return await parseWatched(ctx, () => parseMultipart(ctx, limits, scope.borrow), stall);
        if (ctx.is('json', 'urlencoded')) return await parseWatched(ctx, () => parseTextBody(ctx, limits, scope.borrow), stall);
        return EMPTY_BODY;
      } catch (error) {
        throw error instanceof ApiError ? error : errors.badRequest('Malformed request body');
      }
    },
  };
}
