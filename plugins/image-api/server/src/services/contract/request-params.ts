/**
 * Gathers the upload parameters from wherever clients put them (README, "The API"): the query
 * string, the body's fields (urlencoded, multipart or JSON) and parts, and the X-API-Key header. A
 * body value wins over a query value of the same name; the header wins over the `key` parameter.
 */
import type { Context } from 'koa';
import { pickSource, type BodyPart, type Fields, type SourceInput } from '../sources/source-precedence';

export interface UploadParams {
  key: string | null;
  action: string | null;
  format: string | null;
  source: SourceInput | null;
  title: string | null;
  description: string | null;
  nsfw: boolean;
}

/** First string value of a field that may repeat (arrays) or be missing. */
function text(value: unknown): string | null {
  if (Array.isArray(value)) return text(value[0]);
  return typeof value === 'string' ? value : null;
}

export function readParams(ctx: Context, body: { fields: Fields; parts: readonly BodyPart[] }): UploadParams {
  const fields: Fields = { ...(ctx.query as Fields), ...body.fields };
  const nsfw = text(fields.nsfw);
  return {
    key: text(ctx.get('x-api-key') || null) ?? text(fields.key),
    action: text(fields.action),
    format: text(fields.format),
    source: pickSource(fields, body.parts),
    title: text(fields.title),
    description: text(fields.description),
    nsfw: nsfw === '1' || nsfw === 'true',
  };
}
