/**
 * Which of what the client sent is the image (docs/api.md, "Parameters"): a file part named `source` first,
 * then a file part `image`, then a text `source`, then a text `image` (the alias imgbb-style clients
 * use). A text value is a URL when it starts with a scheme (`https:`, `ftp:`, `file:`...; `data:` is
 * base64's prefix), so one the API does not fetch is refused as a URL (320), not misread as base64;
 * any other text is base64. Of repeated
 * values of one kind, the first counts; text fields come before text that arrived as a part.
 *
 * The body parsers decide none of this: they hand over text fields and the `source`/`image` parts
 * as they arrived, each saying how (see BodyPart).
 */

/** A `source`/`image` part of a request body, as the body parsers collected it. */
export interface BodyPart {
  name: string;
  bytes: Buffer;
  /** The client's file name, when it gave one. */
  filename: string | null;
  /**
   * - `file`: a multipart file part;
   * - `untyped`: a multipart part with neither file name nor type: text or raw bytes, decided by its content;
   * - `decoded`: a base64 text value of a urlencoded body, decoded as it was read.
   */
  arrived: 'file' | 'untyped' | 'decoded';
}

/** Text fields by name; a repeated field keeps every value. */
export type Fields = Record<string, unknown>;

export type SourceInput =
  | { kind: 'file'; bytes: Buffer; filename: string | null }
  | { kind: 'url'; url: string }
  | { kind: 'base64'; text: string }
  /** Base64 already decoded by the body parser. */
  | { kind: 'decoded'; bytes: Buffer };

const SOURCE_NAMES = ['source', 'image'] as const;
/** The field the image came in: `image` is the imgbb dialect's name, and asks for its answer shape. */
export type SourceField = (typeof SOURCE_NAMES)[number];

/** The source and the field it came in. */
export interface PickedSource {
  source: SourceInput;
  field: SourceField;
}

/**
 * An untyped part whose start is printable text (a URL, base64, or a mistyped value) is text; every
 * image format starts with binary bytes, and such a part is the image's bytes.
 */
const TEXT_HEAD = /^[\x20-\x7e\t\r\n]*$/;
const isText = (part: BodyPart) => part.arrived === 'untyped' && part.bytes.length > 0 && TEXT_HEAD.test(part.bytes.subarray(0, 1024).toString('latin1'));

/** `scheme:` at the start (RFC 3986), except base64's `data:` prefix. */
const isUrl = (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value.trim()) && !/^data:/i.test(value.trim());

/** The string values of a field, in order (a field may repeat, or hold something else entirely). */
function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

function fromText(text: string): SourceInput {
  return isUrl(text) ? { kind: 'url', url: text.trim() } : { kind: 'base64', text };
}

/** The source of an upload and its field, or null when there is none. */
export function pickSource(fields: Fields, parts: readonly BodyPart[]): PickedSource | null {
  for (const name of SOURCE_NAMES) {
    const file = parts.find((part) => part.name === name && part.arrived !== 'decoded' && !isText(part));
    if (file) return { source: { kind: 'file', bytes: file.bytes, filename: file.filename || null }, field: name };
  }
  for (const name of SOURCE_NAMES) {
    // Text fields first (the first value decides; blank: none), then text that arrived as a part.
    const [text] = strings(fields[name]);
    if (text !== undefined) {
      if (text.trim() !== '') return { source: fromText(text), field: name };
      continue;
    }
    for (const part of parts) {
      if (part.name !== name) continue;
      if (part.arrived === 'decoded') return { source: { kind: 'decoded', bytes: part.bytes }, field: name };
      if (isText(part)) {
        const value = part.bytes.toString('utf8');
        if (value.trim() !== '') return { source: fromText(value), field: name };
      }
    }
  }
  return null;
}
