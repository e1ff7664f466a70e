/**
 * Decodes a base64 image source (docs/api.md, "Parameters"): whitespace ignored, an optional
 * `data:image/...;base64,` prefix, standard or URL-safe alphabet, padding optional.
 */
import { errors } from '../http/api-error';

const DATA_URI_PREFIX = /^data:[a-z0-9.+-]+\/[a-z0-9.+-]+(?:;[a-z0-9.+-]+=[^;,]*)*;base64,/i;
const BASE64_BODY = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * A text source that is no base64 but a file's name or path (`cat.jpg`, `C:\Photos\cat.png`,
 * `@cat.jpg` as curl's `-d source=@cat.jpg` sends it): the client meant to send the file, and is told how.
 */
export const looksLikeFileName = (text: string) => {
  const name = text.trim();
  return name.length <= 1024 && !/[\r\n]/.test(name) && /^@?(?:[A-Za-z]:[\\/].+|[^@].*\.[A-Za-z][A-Za-z0-9]{1,4})$/.test(name);
};

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
    throw looksLikeFileName(text) ? errors.fileNameAsSource() : errors.badBase64();
  }
  if (decodedLength(clean) > maxBytes) throw errors.tooBig(maxBytes);
  // Node's 'base64' decoder reads both alphabets and needs no padding.
  return Buffer.from(clean, 'base64');
}

/** Encoded bytes decoded per step: each step's strings stay small, short-lived heap objects. */
const WINDOW = 48 * 1024;

/**
 * A percent-encoded base64 value of a urlencoded body (`body[start, end)`), decoded straight into a
 * buffer from `borrow`, a window at a time. Decoding the whole value at once makes two strings the
 * size of the image and more (percent-decoded, then base64), which V8 allocates outside its young
 * generation: for a 12 MP image, 8.6 MB of old-generation garbage per upload and a full collection
 * every few uploads. Here every string is small and dies young.
 *
 * Only the common form is taken: an optional `data:` prefix, then either alphabet with padding at
 * the end only. Anything else (whitespace, `+` for space, stray characters, a malformed escape, more
 * than `maxBytes`) gives null, and the caller decodes the value the general way, which accepts or
 * refuses it exactly as before.
 */
export function decodeFormBase64(body: Buffer, start: number, end: number, maxBytes: number, borrow: (size: number) => Buffer): Buffer | null {
  if (body.subarray(start, end).includes(0x2b /* + */)) return null;
  const capacity = Math.floor(((end - start) * 3) / 4) + 3;
  let out: Buffer | null = null;
  let written = 0;
  let carry = '';
  let first = true;
  for (let from = start; from < end; ) {
    let to = Math.min(from + WINDOW, end);
    // Never split an escape (%XX): end the window before a '%' whose two hex digits lie beyond it.
    if (to < end) {
      if (body[to - 1] === 0x25) to -= 1;
      else if (body[to - 2] === 0x25) to -= 2;
    }
    let text: string;
    try {
      text = decodeURIComponent(body.toString('latin1', from, to));
    } catch {
      return null;
    }
    if (first) {
      first = false;
      if (text.startsWith('data:')) {
        const prefix = DATA_URI_PREFIX.exec(text);
        if (!prefix) return null;
        text = text.slice(prefix[0].length);
      }
    }
    const last = to === end;
    if (last) text = text.endsWith('==') ? text.slice(0, -2) : text.endsWith('=') ? text.slice(0, -1) : text;
    text = carry + text;
    const whole = last ? text.length : text.length - (text.length % 4);
    carry = text.slice(whole);
    if (last && whole % 4 === 1) return null;
    if (whole > 0) {
      const expected = Math.floor((whole * 3) / 4);
      if (written + expected > maxBytes) return null;
      out ??= borrow(Math.min(capacity, maxBytes + 3));
      // Node's decoder skips what is not base64 (whitespace, stray characters) and stops at '=':
      // exactly the promised bytes means every character counted, as in decodeClean.
      if (out.write(text.slice(0, whole), written, 'base64') !== expected) return null;
      written += expected;
    }
    from = to;
  }
  return out && written > 0 ? out.subarray(0, written) : null;
}
