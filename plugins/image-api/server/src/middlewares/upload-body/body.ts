/** What the body parsers of the upload routes produce, and the limits they work to. */
import type { FilePart } from '../../services/contract/request-params';

export type { FilePart };

/** Text fields by name; a repeated field keeps every value. */
export type Fields = Record<string, string | string[]>;

export interface ParsedBody {
  fields: Fields;
  files: Record<string, FilePart>;
}

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

/** The fields that may carry the image. */
export const SOURCE_PARTS = new Set(['source', 'image']);

export function addField(fields: Fields, name: string, value: string) {
  const current = fields[name];
  if (current === undefined) fields[name] = value;
  else fields[name] = Array.isArray(current) ? [...current, value] : [current, value];
}
