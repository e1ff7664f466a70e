/**
 * Gathers the upload parameters from wherever clients put them (contract.md §2): query string,
 * urlencoded or JSON body, multipart text fields and file parts, and the X-API-Key header.
 */
import type { Context } from 'koa';

/** A multipart file part as the body parser collected it. */
export interface FilePart {
  bytes: Buffer;
  originalFilename: string | null;
  size: number;
}

export type SourceInput =
  | { kind: 'file'; file: FilePart }
  | { kind: 'url'; url: string }
  | { kind: 'base64'; data: string };

export interface UploadParams {
  key: string | null;
  action: string | null;
  format: string | null;
  source: SourceInput | null;
  title: string | null;
  description: string | null;
  nsfw: boolean;
}

type Bag = Record<string, unknown>;

/** First string value of a field that may repeat (arrays) or be missing. */
function text(value: unknown): string | null {
  if (Array.isArray(value)) return text(value[0]);
  return typeof value === 'string' ? value : null;
}

function filePart(value: unknown): FilePart | null {
  const file = Array.isArray(value) ? value[0] : value;
  if (file && typeof file === 'object' && Buffer.isBuffer((file as FilePart).bytes)) {
    const { bytes, originalFilename, size } = file as FilePart;
    return { bytes, originalFilename: originalFilename || null, size };
  }
  return null;
}

const isUrl = (value: string) => /^https?:\/\//i.test(value.trim());

/** Source precedence: file part `source`, then text `source`, then text `image` (and an `image` file part). */
export function pickSource(fields: Bag, files: Bag): SourceInput | null {
  const file = filePart(files.source) ?? filePart(files.image);
  if (file) return { kind: 'file', file };
  for (const name of ['source', 'image']) {
    const value = text(fields[name]);
    if (value !== null && value.trim() !== '') {
      return isUrl(value) ? { kind: 'url', url: value.trim() } : { kind: 'base64', data: value };
    }
  }
  return null;
}

export function readParams(ctx: Context): UploadParams {
  const body = ctx.request.body;
  const bodyFields: Bag = body && typeof body === 'object' && !Array.isArray(body) ? (body as Bag) : {};
  // A body value wins over a query value of the same name.
  const fields: Bag = { ...(ctx.query as Bag), ...bodyFields };
  const files: Bag = ((ctx.request as unknown as { files?: Bag }).files ?? {}) as Bag;
  const nsfw = text(fields.nsfw);

  return {
    key: text(ctx.get('x-api-key') || null) ?? text(fields.key),
    action: text(fields.action),
    format: text(fields.format),
    source: pickSource(fields, files),
    title: text(fields.title),
    description: text(fields.description),
    nsfw: nsfw === '1' || nsfw === 'true',
  };
}
