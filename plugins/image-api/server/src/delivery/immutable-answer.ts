/**
 * Answers with bytes that never change under their URL (docs/api.md, "Direct URLs"): direct image files and
 * transformation results. `Cache-Control: public, max-age=N, immutable`, a strong ETag and
 * Last-Modified; a revalidation answers 304 (conditional-request.ts, the origin's rules); HEAD; one
 * `Range` answers 206 (the `range-parser` package; several ranges get the whole file, as nginx does
 * when it would not combine them), an unsatisfiable one 416.
 */
import fs from 'fs';
import type { ServerResponse } from 'http';
import { finished, type Readable } from 'stream';
import type { Context } from 'koa';
import parseRange from 'range-parser';
import { isNotModified } from './conditional-request';
import { cacheTagHeaders } from '../purge/cache-tags';

export interface ImmutableBytes {
  /** The bytes, when they are in memory; else `open` or `path` streams them (never whole in memory). */
  bytes: Buffer | null;
  path?: string;
  /**
   * Opens a stream of the bytes from `start` to `end` (inclusive), e.g. of a kept transformation
   * result through the upload provider; it throws before any header is sent when it cannot.
   */
  open?: (start: number, end: number) => Promise<Readable>;
  size: number;
  type: string;
  /** Quoted, strong. */
  etag: string;
  lastModified: Date;
  /** What the bytes were made under (a render's ticket), held while they are sent. */
  lease?: { hold(): () => void };
}

/** What of an image decides how its answers are cached. */
export interface ImageCaching {
  tags: readonly string[];
  expiresAt: Date | null;
}

export interface AnswerOptions {
  maxAgeSeconds: number;
  /** The answer depends on `Accept` (a negotiated format). */
  varyAccept?: boolean;
  /** A client that takes no byte for this long (ms) is cut off (see sendingWithin()). */
  sendIdleTimeoutMs?: number;
  /** The image the bytes are of: its cache tags (purge/cache-tags.ts), and its expiry, past which no cache keeps them. */
  of?: ImageCaching;
}

/**
 * Bounds what a client that stops reading can hold: the connection is closed once it has taken no
 * byte for `idleMs` (Node's server has no such limit by default, so a paused reader kept an answer's
 * bytes, a render's result among them, for as long as it liked), and `lease` (a render's ticket) is
 * held until the answer is done, sent or not. Applied when the answer is ready, so the time it
 * takes to render counts for nothing. Once the answer is done, Node gives a kept-alive connection
 * its own idle limit back.
 */
export function sendingWithin(res: ServerResponse, idleMs: number | undefined, lease?: { hold(): () => void }): void {
  if (idleMs) res.setTimeout(idleMs, () => res.destroy());
  if (lease) {
    const release = lease.hold();
    if (res.writableFinished || res.destroyed) release();
    else finished(res, release);
  }
}

/** A strong ETag from a file's modification time and size, as nginx writes it (so both agree behind one URL). */
export const fileEtag = (mtimeMs: number, size: number) => `"${Math.floor(mtimeMs / 1000).toString(16)}-${size.toString(16)}"`;

/** 404 that no cache keeps: the image was deleted, expired, or never was (docs/api.md, "Direct URLs"). */
export function answerGone(ctx: Context, body: string | Record<string, unknown> = 'Not Found'): void {
  ctx.status = 404;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** The headers of every such answer (the fast path, delivery/image-fast-path.ts, sends the same). */
export function immutableHeaders(item: Pick<ImmutableBytes, 'etag' | 'lastModified' | 'type'>, { maxAgeSeconds, varyAccept = false, of }: AnswerOptions): Record<string, string> {
  const tags = of?.tags;
  // An image that expires is kept by no cache, a browser's included, past its expiry.
  const maxAge = of?.expiresAt ? Math.max(0, Math.min(maxAgeSeconds, Math.floor((of.expiresAt.getTime() - Date.now()) / 1000))) : maxAgeSeconds;
  return {
    'Cache-Control': `public, max-age=${maxAge}, immutable`,
    ETag: item.etag,
    'Last-Modified': item.lastModified.toUTCString(),
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    ...(varyAccept ? { Vary: 'Accept' } : {}),
    ...(tags?.length ? cacheTagHeaders(tags) : {}),
    'Content-Type': item.type,
  };
}

export async function answerImmutable(ctx: Context, item: ImmutableBytes, options: AnswerOptions): Promise<void> {
  const headers = immutableHeaders(item, options);
  if (isNotModified(ctx.req.headers, item)) {
    ctx.status = 304;
    ctx.set(headers);
    ctx.body = null;
    return;
  }

  let start = 0;
  let end = item.size - 1;
  let partial = false;
  const range = ctx.get('Range');
  const ifRange = ctx.get('If-Range');
  if (range && (!ifRange || ifRange === item.etag)) {
    const ranges = parseRange(item.size, range, { combine: true });
    if (ranges === -1) {
      ctx.status = 416;
      ctx.set(headers);
      ctx.set('Content-Range', `bytes */${item.size}`);
      ctx.type = 'text/plain';
      ctx.body = 'Range Not Satisfiable';
      return;
    }
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
      [{ start, end }] = ranges;
      partial = true;
    }
  }

  // The body first: a stream that cannot be opened throws before a header of this answer is set.
  // HEAD opens nothing (an empty body, and the length the GET would send); a stream holds a chunk at
  // a time, however slowly the client reads.
  let body: Buffer | Readable;
  if (item.bytes) body = start === 0 && end === item.size - 1 ? item.bytes : item.bytes.subarray(start, end + 1);
  else if (ctx.method === 'HEAD') body = Buffer.alloc(0);
  else if (item.open) body = await item.open(start, end);
  else body = fs.createReadStream(item.path!, { start, end });

  sendingWithin(ctx.res, options.sendIdleTimeoutMs, item.lease);
  ctx.status = partial ? 206 : 200;
  ctx.set(headers);
  if (partial) ctx.set('Content-Range', `bytes ${start}-${end}/${item.size}`);
  ctx.body = body;
  if (!item.bytes) ctx.length = end - start + 1;
}
