/**
 * The output format of a transformation that names none (docs/api.md, "Transformations"): the best the client
 * accepts, AVIF, then WebP, else the source's own. Such an answer varies with `Accept`.
 */
import type { OutputFormat } from './transform-options';

/** Whether an Accept header takes `mime` with a non-zero q (a `*`/`image/*` wildcard does not count: browsers send it for every image). */
function accepts(accept: string, mime: string): boolean {
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    if (type.trim() !== mime) continue;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

export function negotiateFormat(accept: string | undefined, sourceFormat: OutputFormat): OutputFormat {
  if (accept) {
    if (accepts(accept, 'image/avif')) return 'avif';
    if (accepts(accept, 'image/webp')) return 'webp';
  }
  return sourceFormat;
}

/** What of an Accept header negotiation reads: the answer is the same for two headers of one class. */
export function acceptClass(accept: string | undefined): 'avif' | 'webp' | 'other' {
  if (accept && accepts(accept, 'image/avif')) return 'avif';
  if (accept && accepts(accept, 'image/webp')) return 'webp';
  return 'other';
}
