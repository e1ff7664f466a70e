/**
 * Decodes a base64 image source (contract.md §2): whitespace ignored, an optional
 * `data:image/...;base64,` prefix, standard or URL-safe alphabet, padding optional.
 */
import { errors } from './api-error';

const DATA_URI_PREFIX = /^data:[a-z0-9.+-]+\/[a-z0-9.+-]+(?:;[a-z0-9.+-]+=[^;,]*)*;base64,/i;
const BASE64_BODY = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Decoded length of a clean base64 string, computed before decoding so the byte cap costs nothing. */
export const decodedLength = (clean: string) => {
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor(((clean.length - padding) * 3) / 4);
};

/**
 * The common case in one pass over the text (a 10 MB image is 13 MB of it): Node's decoder skips
 * characters outside both alphabets, so when it yields exactly the bytes the length promises, every
 * character counted; `=` only at the end. Null when in doubt (whitespace, stray characters, too big):
 * the careful path decides.
 */
function decodeClean(text: string, maxBytes: number): Buffer | null {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const body = text.length - padding;
  const expected = Math.floor((body * 3) / 4);
  if (body === 0 || body % 4 === 1 || expected > maxBytes) return null;
  const firstPad = text.indexOf('=');
  if (firstPad !== -1 && firstPad < body) return null;
  const decoded = Buffer.from(text, 'base64');
  return decoded.length === expected ? decoded : null;
}

export function decodeBase64Source(source: string, maxBytes: number): Buffer {
  const text = source.startsWith('data:') ? source.replace(DATA_URI_PREFIX, '') : source;
  const fast = decodeClean(text, maxBytes);
  if (fast) return fast;

  const clean = text.replace(/\s+/g, '');
  // Node's decoder skips characters it does not know, so the alphabet is checked first.
  if (clean === '' || !BASE64_BODY.test(clean) || clean.replace(/=+$/, '').length % 4 === 1) {
    throw errors.badBase64();
  }
  if (decodedLength(clean) > maxBytes) throw errors.tooBig(maxBytes);
  // Node's 'base64' decoder reads both alphabets and needs no padding.
  return Buffer.from(clean, 'base64');
}
