/**
 * The API's parameters: where clients put them (docs/api.md, "Parameters"), and what they may be. They
 * are gathered from the query string, the body's fields (urlencoded, multipart or JSON) and parts,
 * and the X-API-Key header (a body value wins over a query value of the same name; the header over
 * the `key` parameter), then checked by the joi schema of the action, whose refusals are the error
 * table's. Parameters an action does not use are ignored.
 */
import Joi from 'joi';
import type { Context } from 'koa';
import { errors } from '../http/api-error';
import { expirationSeconds, type ExpirationLimits } from './expiration';
import { pickSource, type BodyPart, type Fields, type SourceField, type SourceInput } from '../protocol/source-precedence';

export const FORMATS = ['json', 'txt', 'redirect'] as const;
export type Format = (typeof FORMATS)[number];

export const ACTIONS = ['upload', 'delete', 'albums'] as const;
export type Action = (typeof ACTIONS)[number];

/** Characters of a title that are kept. */
export const TITLE_LENGTH = 100;
/** Characters of a description that are kept: it is repeated in every view of the viewer page. */
export const DESCRIPTION_LENGTH = 5000;

/** At most `length` characters of a text parameter (code points, so no character is cut in two). */
const truncated = (length: number) => (value: string | null) => (value === null ? null : Array.from(value).slice(0, length).join(''));

/** The parameters as sent: the first text value of each, the source as precedence picks it. */
export interface SentParams {
  key: string | null;
  action: string | null;
  format: string | null;
  source: SourceInput | null;
  /** The field the source came in (`image`: answer in the imgbb dialect's shape); null without a source. */
  sourceField: SourceField | null;
  /** `title`, or its alias `name`. */
  title: string | null;
  description: string | null;
  nsfw: string | null;
  width: string | null;
  albumId: string | null;
  expiration: string | null;
  /** The image an API delete names (`id`). */
  id: string | null;
}

/** What every action reads. */
export interface CommonParams {
  key: string | null;
  format: Format;
}

export interface UploadParams extends CommonParams {
  source: SourceInput | null;
  title: string | null;
  description: string | null;
  nsfw: boolean;
  /** Resize the stored original to this width (never enlarged). */
  width: number | null;
  /** The Media Library folder to store it in. */
  albumId: number | null;
  /** Seconds until it expires; null: as the key says. */
  expiration: number | null;
}

export interface DeleteParams extends CommonParams {
  id: string;
}

/** First value of a field that may repeat (arrays) or be missing, as text (JSON bodies send numbers and booleans too). */
function text(value: unknown): string | null {
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'string' ? value : null;
}

export function gatherParams(ctx: Context, body: { fields: Fields; parts: readonly BodyPart[] }): SentParams {
  // No prototype: only what the client sent answers to a name.
  const fields: Fields = Object.assign(Object.create(null) as Fields, ctx.query, body.fields);
  const picked = pickSource(fields, body.parts);
  return {
    key: text(ctx.get('x-api-key') || null) ?? text(fields.key),
    action: text(fields.action),
    format: text(fields.format),
    source: picked?.source ?? null,
    sourceField: picked?.field ?? null,
    title: text(fields.title) ?? text(fields.name),
    description: text(fields.description),
    nsfw: text(fields.nsfw),
    width: text(fields.width),
    albumId: text(fields.album_id),
    expiration: text(fields.expiration),
    id: text(fields.id),
  };
}

const nullableText = () => Joi.string().allow(null, '');
/** An optional positive integer, given as digits; an empty value is none. */
const positiveInteger = () =>
  Joi.string()
    .allow(null)
    .empty('')
    .default(null)
    .custom((value: string) => {
      const number = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(number) || number < 1) throw new Error('not a positive integer');
      return number;
    });

/** The keys every action checks, in the order clients learn of their mistakes: the action, then the format. */
const common = (action: Action) => ({
  action: Joi.string().valid(action).allow(null).error(() => errors.badAction()),
  format: Joi.string().valid(...FORMATS).empty(null).default('json').error(() => errors.badFormat(FORMATS)),
  key: nullableText(),
});

/** The upload's parameters as the schema leaves them: the expiration is still text (its limits are the configuration's). */
type CheckedUpload = Omit<UploadParams, 'expiration'> & { expiration: string | null; sourceField?: unknown };

const schemas = {
  upload: Joi.object<CheckedUpload>({
    ...common('upload'),
    width: positiveInteger().error(() => errors.invalidWidth()),
    albumId: positiveInteger().error(() => errors.invalidAlbum()),
    expiration: nullableText(),
    source: Joi.any(),
    sourceField: Joi.any().strip(),
    title: nullableText().custom(truncated(TITLE_LENGTH)),
    description: nullableText().custom(truncated(DESCRIPTION_LENGTH)),
    // A flag: "1" or "true" set it; anything else, or nothing, leaves it off.
    nsfw: Joi.any().custom((value: unknown) => value === '1' || value === 'true'),
  }),
  delete: Joi.object<DeleteParams>({
    ...common('delete'),
    id: Joi.string().trim().min(1).required().error(() => errors.noImageId()),
  }),
  albums: Joi.object<CommonParams>(common('albums')),
};

function check<T>(schema: Joi.ObjectSchema<T>, sent: SentParams): T {
  const { value, error } = schema.validate(sent, { abortEarly: true, stripUnknown: true });
  if (error) throw error;
  return value;
}

/** The upload's parameters, checked; `expiration` read with the configured limits. */
export function checkUploadParams(sent: SentParams, limits: ExpirationLimits, now = new Date()): UploadParams {
  const params = check(schemas.upload, sent);
  const asked = params.expiration?.trim();
  return { ...params, expiration: asked ? expirationSeconds(asked, limits, now) : null };
}

export const checkDeleteParams = (sent: SentParams): DeleteParams => check(schemas.delete, sent);
export const checkAlbumsParams = (sent: SentParams): CommonParams => check(schemas.albums, sent);

/** The format to answer in: the one asked for when it is one, else JSON (errors included). */
export const answerFormat = (asked: unknown): Format =>
  typeof asked === 'string' && (FORMATS as readonly string[]).includes(asked) ? (asked as Format) : 'json';
