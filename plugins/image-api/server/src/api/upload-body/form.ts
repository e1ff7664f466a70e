/**
 * Urlencoded and JSON bodies (co-body), read up to the text limit and never past it. A long base64
 * `source`/`image` in a urlencoded body is decoded straight into a pooled buffer (see parseForm).
 */
import coBody from 'co-body';
import qs from 'qs';
import type { Context } from 'koa';
import { ApiError, errors } from '../../http/api-error';
import { decodeFormBase64 } from '../../sources/base64-source';
import { addField, SOURCE_PARTS, type BodyLimits, type BodyPart, type ParsedBody, type TextFields } from './body';

const QUERY_STRING = { arrayLimit: 20, depth: 2 };
/** Values this long are image sources (base64, in practice) and skip the general parser. */
const LARGE_VALUE = 32 * 1024;
/** Fields a urlencoded body may carry, as a multipart one (multipart.ts): an upload sends a handful. */
export const MAX_FORM_FIELDS = 100;
/** A JSON body's nesting and its members (keys and array items, all levels): an upload is one flat object. */
export const MAX_JSON_DEPTH = 8;
export const MAX_JSON_MEMBERS = 1000;

const tooManyFields = () => errors.badRequest('Malformed request body: too many fields');

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
  if (body.length < LARGE_VALUE) {
    if (countOf(body, 0x26 /* & */, MAX_FORM_FIELDS) >= MAX_FORM_FIELDS) throw tooManyFields();
    return { fields: qs.parse(body.toString('utf8'), QUERY_STRING), parts: [] };
  }
  const small: string[] = [];
  const large: Array<[string, string]> = [];
  const decoded = new Map<string, Buffer>();
  let start = 0;
  let seen = 0;
  while (start <= body.length) {
    // Counted before any work on the field: 5 million empty fields cost a scan, not 5 million strings.
    if (++seen > MAX_FORM_FIELDS) throw tooManyFields();
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

/** How many `byte`s `body` holds, counting no further than `max`. */
function countOf(body: Buffer, byte: number, max: number): number {
  let count = 0;
  for (let at = body.indexOf(byte); at !== -1 && count < max; at = body.indexOf(byte, at + 1)) count++;
  return count;
}

/**
 * Refuses a JSON body that cannot be an upload before JSON.parse pays for it: nested deeper than
 * MAX_JSON_DEPTH, or with more than MAX_JSON_MEMBERS keys and items. One pass over the bytes that
 * stops at the first excess; strings (a base64 image among them) are skipped with indexOf.
 */
export function checkJsonShape(body: Buffer): void {
  let depth = 0;
  let members = 0;
  for (let at = 0; at < body.length; at++) {
    const byte = body[at];
    if (byte === 0x22 /* " */) {
      // To the closing quote: one preceded by an even run of backslashes.
      let end = body.indexOf(0x22, at + 1);
      while (end !== -1) {
        let slashes = 0;
        while (body[end - 1 - slashes] === 0x5c /* \ */) slashes++;
        if (slashes % 2 === 0) break;
        end = body.indexOf(0x22, end + 1);
      }
      if (end === -1) return; // unterminated: JSON.parse refuses it
      at = end;
    } else if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
      if (++depth > MAX_JSON_DEPTH) throw errors.badRequest('Malformed request body: nested too deeply');
      members++;
    } else if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) {
      depth--;
    } else if (byte === 0x2c /* , */ || byte === 0x3a /* : */) {
      members++;
    }
    if (members > MAX_JSON_MEMBERS) throw tooManyFields();
  }
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
    // As bytes (encoding null): checked, then parsed (JSON) or split and decoded (see parseForm).
    const body = (await coBody.text(ctx, { ...options, encoding: null as unknown as string })) as unknown as Buffer;
    if (ctx.is('json')) {
      checkJsonShape(body);
      // A JSON body that is not an object (an array, a string) carries no parameters.
      const json: unknown = JSON.parse(body.toString('utf8'));
      return { fields: isPlainObject(json) ? json : {}, parts: [] };
    }
    return parseForm(body, limits.maxBytes, borrow);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if ((error as { status?: number }).status === 413) throw errors.tooBig(limits.maxBytes);
    throw errors.badRequest('Malformed request body');
  }
}
