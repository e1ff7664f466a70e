/**
 * The upload's parameters: where clients put them (docs/api.md, "Parameters"), and what they may be. They
 * are gathered from the query string, the body's fields (urlencoded, multipart or JSON) and parts,
 * and the X-API-Key header (a body value wins over a query value of the same name; the header over
 * the `key` parameter), then checked by a joi schema whose refusals are the error table's.
 */
import Joi from 'joi';
import type { Context } from 'koa';
import { errors } from './api-error';
import { pickSource, type BodyPart, type Fields, type SourceInput } from '../sources/source-precedence';

export const FORMATS = ['json', 'txt', 'redirect'] as const;
export type Format = (typeof FORMATS)[number];

/** The parameters as sent: the first text value of each, the source as precedence picks it. */
export interface SentParams {
  key: string | null;
  action: string | null;
  format: string | null;
  source: SourceInput | null;
  title: string | null;
  description: string | null;
  nsfw: string | null;
}

/** The parameters, checked. */
export interface UploadParams {
  key: string | null;
  action: 'upload' | null;
  format: Format;
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

export function gatherParams(ctx: Context, body: { fields: Fields; parts: readonly BodyPart[] }): SentParams {
  const fields: Fields = { ...(ctx.query as Fields), ...body.fields };
  return {
    key: text(ctx.get('x-api-key') || null) ?? text(fields.key),
    action: text(fields.action),
    format: text(fields.format),
    source: pickSource(fields, body.parts),
    title: text(fields.title),
    description: text(fields.description),
    nsfw: text(fields.nsfw),
  };
}

const nullableText = () => Joi.string().allow(null, '');

/** In the order clients learn of their mistakes: the action, then the format. */
const paramsSchema = Joi.object<UploadParams>({
  action: Joi.string().valid('upload').allow(null).error(() => errors.badAction()),
  format: Joi.string().valid(...FORMATS).empty(null).default('json').error(() => errors.badFormat()),
  key: nullableText(),
  source: Joi.any(),
  title: nullableText(),
  description: nullableText(),
  // A flag: "1" or "true" set it; anything else, or nothing, leaves it off.
  nsfw: Joi.any().custom((value: unknown) => value === '1' || value === 'true'),
});

/** The checked parameters, or the error table's refusal (120 for the action, 140 for the format). */
export function checkParams(sent: SentParams): UploadParams {
  const { value, error } = paramsSchema.validate(sent, { abortEarly: true });
  if (error) throw error;
  return value;
}

/** The format to answer in: the one asked for when it is one, else JSON (errors included). */
export const answerFormat = (asked: unknown): Format =>
  typeof asked === 'string' && (FORMATS as readonly string[]).includes(asked) ? (asked as Format) : 'json';
