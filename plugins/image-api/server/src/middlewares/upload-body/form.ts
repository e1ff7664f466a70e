/**
 * Urlencoded and JSON bodies (co-body), read up to the text limit and never past it. A long base64
 * `source`/`image` in a urlencoded body is decoded straight into a pooled buffer (see parseForm).
 */
import coBody from 'co-body';
import qs from 'qs';
import type { Context } from 'koa';
import { errors } from '../../services/contract/api-error';
import { decodeFormBase64 } from '../../services/sources/base64-source';
import { addField, SOURCE_PARTS, type BodyLimits, type Fields, type FilePart, type ParsedBody } from './body';

const QUERY_STRING = { arrayLimit: 20, depth: 2 };
/** Values this long are image sources (base64, in practice) and skip the general parser. */
const LARGE_VALUE = 32 * 1024;

/** As qs decodes: a malformed percent-escape leaves the text as it was. */
const decodeComponent = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * A urlencoded body. A base64 image makes it megabytes long, and the general parser (qs) spends
 * longer on it than the image work: `source`/`image` values that long are cut out of the body and
 * decoded on their own, the rest goes through qs as before. The common form of base64 is decoded
 * straight to bytes (decodeFormBase64) and handed on as a file part without a name, which is what
 * a decoded base64 source amounts to; any other value is percent-decoded to text as qs would.
 */
function parseForm(body: Buffer, maxBytes: number, borrow: (size: number) => Buffer): { fields: Fields; files: Record<string, FilePart> } {
  const files: Record<string, FilePart> = {};
  if (body.length < LARGE_VALUE) return { fields: qs.parse(body.toString('utf8'), QUERY_STRING) as Fields, files };
  const small: string[] = [];
  const large: Array<[string, string]> = [];
  const decoded = new Map<string, Buffer>();
  let start = 0;
  while (start <= body.length) {
    const amp = body.indexOf(0x26 /* & */, start);
    const end = amp === -1 ? body.length : amp;
    const eq = body.subarray(start, end).indexOf(0x3d /* = */);
    const name = eq === -1 ? '' : decodeComponent(body.toString('latin1', start, start + eq).replace(/\+/g, ' '));
    if (end - start >= LARGE_VALUE && SOURCE_PARTS.has(name)) {
      const bytes = decoded.has(name) ? null : decodeFormBase64(body, start + eq + 1, end, maxBytes, borrow);
      if (bytes) decoded.set(name, bytes);
      else {
        const value = body.toString('latin1', start + eq + 1, end);
        large.push([name, decodeComponent(value.includes('+') ? value.replace(/\+/g, ' ') : value)]);
      }
    } else if (end > start) {
      small.push(body.toString('latin1', start, end));
    }
    start = end + 1;
  }
  const fields = qs.parse(Buffer.from(small.join('&'), 'latin1').toString('utf8'), QUERY_STRING) as Fields;
  for (const [name, value] of large) addField(fields, name, value);
  for (const [name, bytes] of decoded) {
    // Text `source` comes before text `image` (request-params): a decoded `image` must not overtake
    // a `source` given as text.
    if (name === 'image' && fields.source !== undefined) addField(fields, name, bytes.toString('base64'));
    else files[name] = { bytes, originalFilename: null, size: bytes.length };
  }
  return { fields, files };
}

/** A JSON or urlencoded body; refusals are the contract's 400 or 413. */
export async function parseTextBody(
  ctx: Context,
  limits: BodyLimits,
  borrow: (size: number) => Buffer
): Promise<{ fields: unknown; files: Record<string, FilePart> }> {
  const options = { limit: limits.maxTextBytes, strict: true };
  try {
    if (ctx.is('json')) return { fields: await coBody.json(ctx, options), files: {} };
    // As bytes (encoding null): the form is split and decoded from them (see parseForm).
    const body = (await coBody.text(ctx, { ...options, encoding: null as unknown as string })) as unknown as Buffer;
    return parseForm(body, limits.maxBytes, borrow);
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw errors.tooBig(limits.maxBytes);
    throw errors.badRequest('Malformed request body');
  }
}
