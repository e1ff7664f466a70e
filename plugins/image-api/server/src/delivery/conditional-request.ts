/**
 * Whether a GET or HEAD of an immutable answer (direct files, transformations, and the fast path's
 * repeats of both) is answered 304, by the origin's rules of RFC 9110 §13.2.2: `If-None-Match`
 * decides when present (weak comparison, `*` matches), and `If-Modified-Since` only when it is
 * absent. The request's `Cache-Control` plays no part: `no-cache` asks caches on the way to ask the
 * origin again, which a conditional request does, and `fetch()` adds it to every request that
 * carries a validator. The `fresh` package (Koa's `ctx.fresh`) reads it as "send the whole body"
 * instead, where nginx answers 304.
 */
import type { IncomingHttpHeaders } from 'http';

export interface Validators {
  /** Quoted, as sent in ETag. */
  etag: string;
  lastModified: Date;
}

/** The entity tags of an If-None-Match list, without `W/` (a tag's quotes may hold commas). */
const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;

function matchesAny(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const [, tag] of ifNoneMatch.matchAll(ENTITY_TAG)) if (tag === opaque) return true;
  return false;
}

/** True when the client's copy is current: answer 304 with no body. */
export function isNotModified(headers: IncomingHttpHeaders, { etag, lastModified }: Validators): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesAny(ifNoneMatch, etag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  // An invalid date is ignored (RFC 9110 §13.1.3); HTTP dates have whole seconds.
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
