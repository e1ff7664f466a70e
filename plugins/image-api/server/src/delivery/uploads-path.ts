/**
 * A path names a file under `/uploads/` one way (docs/security.md, "Serving"): `/uploads/<name>`,
 * spelled as it is stored, nothing percent-encoded. Strapi's static serving (koa-send) decodes the
 * path and resolves `.`, `..` and `//` before it opens a file, so `/uploads//F`, `/uploads/./F`,
 * `/uploads/x/../F`, `/uploads/%2e/F`, `/uploads%2FF`, `/%75ploads/F` or `/./uploads/F` would all
 * reach the same file as `/uploads/F`, past any check made on the plain spelling (an expired image's
 * files, the headers of other Media Library files). Any other spelling of a path under `/uploads`
 * is therefore named here, so that it can be answered 404 before Strapi sees it.
 *
 * Stored names are letters, digits, `.`, `_` and `-` (an API image's, a kept transformation's, and
 * Strapi's Media Library hashes); a Media Library extension taken from a client's file name may add
 * other characters that a URL path carries as they are (`.c++`). A name whose characters need
 * percent-encoding (a space, non-ASCII) has no plain spelling and is not served.
 */
import path from 'path';

export const UPLOADS_PREFIX = '/uploads/';

/** `/uploads/<name>`, exactly: no dot first, no separator, nothing that decoding would change. */
const CANONICAL = /^\/uploads\/([A-Za-z0-9_~!$&'()*+,;=@-][A-Za-z0-9._~!$&'()*+,;=@-]*)$/;

/** What a request path names: a stored name, another spelling of something under `/uploads`, or nothing there. */
export type UploadsPath = { fileName: string } | 'other-spelling' | null;

/** One decoding, as koa-send does; null when it is malformed. */
function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Whether a spelling, once its dot segments, doubled and back slashes are resolved, lands in `/uploads` (in any case). */
function landsInUploads(spelling: string): boolean {
  const resolved = path.posix.normalize(spelling.replace(/\\/g, '/')).toLowerCase();
  return resolved === '/uploads' || resolved.startsWith('/uploads/');
}

/** `pathname`: the request's path as sent, without its query string. */
export function readUploadsPath(pathname: string): UploadsPath {
  const canonical = CANONICAL.exec(pathname);
  if (canonical) return { fileName: canonical[1] };
  // Spelled under `/uploads`, whatever it resolves to (`/uploads/../robots.txt` too).
  if (/^\/uploads(?:\/|$)/i.test(pathname)) return 'other-spelling';
  // Only a path that spells "uploads" or percent-encodes something can land there: the rest costs one test.
  if (!/uploads|%/i.test(pathname)) return null;
  // As sent, decoded once (what koa-send opens) and twice (what a proxy in front that decodes once would pass on).
  if (landsInUploads(pathname)) return 'other-spelling';
  const once = pathname.includes('%') ? decoded(pathname) : null;
  if (once !== null && landsInUploads(once)) return 'other-spelling';
  const twice = once?.includes('%') ? decoded(once) : null;
  return twice !== null && landsInUploads(twice) ? 'other-spelling' : null;
}
