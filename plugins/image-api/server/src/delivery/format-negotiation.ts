/**
 * The output format of a transformation that names none (docs/api.md, "Transformations"): the best the client
 * accepts, AVIF, then WebP, else the source's own. An animated source is never given a still format:
 * WebP when the client takes it, else its own (GIF or WebP). Such an answer varies with `Accept`.
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

/** `sourceFormat`: what a client that takes neither AVIF nor WebP gets (the source's own, or a stand-in). */
export function negotiateFormat(accept: string | undefined, sourceFormat: OutputFormat, animated = false): OutputFormat {
  if (accept) {
    if (!animated && accepts(accept, 'image/avif')) return 'avif';
    if (accepts(accept, 'image/webp')) return 'webp';
  }
  return sourceFormat;
}

/**
 * What of an Accept header negotiation reads: the answer is the same for two headers of one class,
 * still source or animated (an animation skips AVIF, so AVIF alone and AVIF with WebP are two classes).
 */
export function acceptClass(accept: string | undefined): 'avif+webp' | 'avif' | 'webp' | 'other' {
  const avif = accept !== undefined && accepts(accept, 'image/avif');
  const webp = accept !== undefined && accepts(accept, 'image/webp');
  return avif ? (webp ? 'avif+webp' : 'avif') : webp ? 'webp' : 'other';
}
