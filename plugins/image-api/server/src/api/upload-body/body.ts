/** What the body parsers of the upload routes produce, and the limits they work to. */
import type { BodyPart, Fields } from '../../protocol/source-precedence';
import { ownValue } from '../../../../shared/own-property';

export type { BodyPart };

/** Text fields by name, as multipart and urlencoded bodies carry them; a repeated field keeps every value. */
export type TextFields = Record<string, string | string[]>;

/** Fields with no prototype: a field named `__proto__` or `constructor` is a field like any other. */
export const noFields = (): TextFields => Object.create(null) as TextFields;

/** A request body turned into text fields and `source`/`image` parts; nothing decided yet. */
export interface ParsedBody {
  /** Text fields (a JSON body's values as they are). */
  fields: Fields;
  /** The `source`/`image` parts, in the order they arrived. */
  parts: BodyPart[];
}

export const EMPTY_BODY: ParsedBody = Object.freeze({ fields: {}, parts: [] }) as ParsedBody;

export interface BodyLimits {
  /** Largest image, bytes. */
  maxBytes: number;
  /** Largest urlencoded/JSON body or text field: base64 of `maxBytes`, percent-encoded, plus room. */
  maxTextBytes: number;
}

export const bodyLimitsFor = (maxBytes: number): BodyLimits => ({
  maxBytes,
  maxTextBytes: Math.ceil(maxBytes * (4 / 3) * 1.25) + 1_000_000,
});

/** Room for multipart boundaries, part headers and the small text fields next to the image. */
export const MULTIPART_OVERHEAD = 1_000_000;

/** The largest body the upload routes read; one declared bigger is refused (413) before a byte is read. */
export const maxBodyBytes = (limits: BodyLimits) => limits.maxTextBytes + MULTIPART_OVERHEAD;

/** The fields that may carry the image: the parsers keep their bytes as parts. */
export const SOURCE_PARTS = new Set(['source', 'image']);

export function addField(fields: TextFields, name: string, value: string) {
  const current = ownValue(fields, name);
  if (current === undefined) fields[name] = value;
  else fields[name] = Array.isArray(current) ? [...current, value] : [current, value];
}
