/**
 * Urlencoded and JSON bodies (co-body), read up to the text limit and never past it. A long base64
 * `source`/`image` in a urlencoded body is decoded straight into a pooled buffer (see parseForm).
 */
import coBody from 'co-body';
import qs from 'qs';
import type { Context } from 'koa';
import { errors } from '../../services/contract/api-error';
import { decodeFormBase64 } from '../../services/sources/base64-source';
import { addField, SOURCE_PARTS, type BodyLimits, type BodyPart, type ParsedBody, type TextFields } from './body';

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
 * straight to bytes (decodeFormBase64) and handed on as a `decoded` part; any other value is
 * percent-decoded to text as qs would.
 */
function parseForm(body: Buffer, maxBytes: number, borrow: (size: number) => Buffer): ParsedBody {
  if (body.length < LARGE_VALUE) return { fields: qs.parse(body.toString('utf8'), QUERY_STRING), parts: [] };
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
  const fields = qs.parse(Buffer.from(small.join('&'), 'latin1').toString('utf8'), QUERY_STRING) as TextFields;
  for (const [name, value] of large) addField(fields, name, value);
  const parts = [...decoded].map(([name, bytes]): BodyPart => ({ name, bytes, filename: null, arrived: 'decoded' }));
  return { fields, parts };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON or urlencoded body; refusals are the error table's 400 or 413. */
export async function parseTextBody(
  ctx: Context,
  limits: BodyLimits,
  borrow: (size: number) => Buffer
): Promise<ParsedBody> {
  const options = { limit: limits.maxTextBytes, strict: true };
  try {
    if (ctx.is('json')) {
      // A JSON body that is not an object (an array, a string) carries no parameters.
      const json: unknown = await coBody.json(ctx, options);
      return { fields: isPlainObject(json) ? json : {}, parts: [] };
    }
    // As bytes (encoding null): the form is split and decoded from them (see parseForm).
    const body = (await coBody.text(ctx, { ...options, encoding: null as unknown as string })) as unknown as Buffer;
    return parseForm(body, limits.maxBytes, borrow);
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw errors.tooBig(limits.maxBytes);
    throw errors.badRequest('Malformed request body');
  }
}
