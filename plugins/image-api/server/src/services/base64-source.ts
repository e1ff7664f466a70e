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

export function decodeBase64Source(source: string, maxBytes: number): Buffer {
  const clean = source.replace(/\s+/g, '').replace(DATA_URI_PREFIX, '');
  // Node's decoder skips characters it does not know, so the alphabet is checked first.
  if (clean === '' || !BASE64_BODY.test(clean) || clean.replace(/=+$/, '').length % 4 === 1) {
    throw errors.badBase64();
  }
  if (decodedLength(clean) > maxBytes) throw errors.tooBig(maxBytes);
  // Node's 'base64' decoder reads both alphabets and needs no padding.
  return Buffer.from(clean, 'base64');
}
