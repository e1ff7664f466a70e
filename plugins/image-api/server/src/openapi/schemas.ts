/**
 * The answers' shapes (components.schemas of the OpenAPI document), with the exact types the API
 * sends: the image object of the API's dialect (docs/api.md, "The image object"), imgbb's (docs/api.md, "The imgbb dialect"), the albums,
 * the error shape. Closed objects (no field beyond these), so a test sees any field added or dropped.
 */
import { MODERATION_STATES } from '../config/constants';

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const uri = { type: 'string', format: 'uri' } as const;
const dateTime = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A closed object whose every listed property is required, in the order given. */
const object = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  additionalProperties: false,
});

/** Contract §14: what a page paints before the image arrives. */
const placeholder = { type: 'string', pattern: '^[A-Za-z0-9+/]+={0,2}$', description: 'ThumbHash of the image, base64' };
const dominantColor = { type: 'string', pattern: '^#[0-9a-f]{6}$', description: 'The most frequent colour, #rrggbb' };
const moderation = {
  type: 'string',
  enum: [...MODERATION_STATES],
  description: 'Where the image stands in moderation (docs/moderation.md): `held` answers 404 on every URL until an admin approves it; `flagged`: its viewer page asks before showing it',
};

const variant = object({
  filename: string,
  name: string,
  width: integer,
  height: integer,
  ratio: { type: 'number' },
  size: integer,
  size_formatted: string,
  mime: string,
  extension: string,
  bits: integer,
  channels: nullable(integer),
  url: uri,
});

const image = object(
  {
    name: string,
    extension: string,
    size: integer,
    width: integer,
    height: integer,
    date: { ...dateTime, description: 'Upload time in the configured time zone' },
    date_gmt: { ...dateTime, description: 'Upload time in UTC' },
    storage_id: { type: 'null' },
    description: nullable(string),
    nsfw: { type: 'string', enum: ['0', '1'] },
    md5: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    storage: string,
    original_filename: string,
    original_exifdata: nullable({ type: 'object' }),
    views: { type: 'string', pattern: '^\\d+$' },
    id_encoded: { type: 'string', pattern: '^[A-Za-z0-9]{1,12}$' },
    filename: string,
    ratio: { type: 'number' },
    size_formatted: string,
    mime: string,
    bits: integer,
    channels: nullable(integer),
    url: uri,
    url_viewer: uri,
    thumb: ref('Variant'),
    medium: ref('Variant'),
    views_label: { type: 'string', enum: ['view', 'views'] },
    display_url: uri,
    how_long_ago: string,
    title: nullable(string),
    delete_url: { ...uri, description: 'The secret delete link: only in the upload\'s answer' },
    expiration_date_gmt: nullable(dateTime),
    placeholder,
    dominant_color: dominantColor,
    moderation,
  },
  []
);

const success = (message: string, extra: Record<string, unknown> = {}) =>
  object({
    status_code: { const: 200 },
    success: object({ message: { const: message }, code: { const: 200 } }),
    ...extra,
    status_txt: { const: 'OK' },
  });

const imgbbFile = object({ filename: string, name: string, mime: string, extension: string, url: uri });
const digits = { type: 'string', pattern: '^\\d+$' } as const;

export const schemas = {
  Variant: variant,
  Image: image,
  UploadSuccess: success('image uploaded', { image: ref('Image') }),
  DeleteSuccess: success('image deleted'),
  ReportSuccess: success('report received'),
  Album: object({ id: integer, name: string, path: string, image_count: integer }),
  AlbumsSuccess: success('albums', { albums: { type: 'array', items: ref('Album') } }),
  ImgbbFile: imgbbFile,
  ImgbbUploadSuccess: object({
    data: object({
      id: { type: 'string', pattern: '^[A-Za-z0-9]{1,12}$' },
      title: string,
      url_viewer: uri,
      url: uri,
      display_url: uri,
      width: digits,
      height: digits,
      size: digits,
      time: { ...digits, description: 'Unix time of the upload' },
      expiration: { ...digits, description: 'Seconds the image lives, "0" for ever' },
      image: ref('ImgbbFile'),
      thumb: ref('ImgbbFile'),
      medium: ref('ImgbbFile'),
      delete_url: uri,
      placeholder,
      dominant_color: dominantColor,
      moderation,
    }),
    success: { const: true },
    status: { const: 200 },
  }),
  Error: object(
    {
      status_code: integer,
      error: object({ message: string, code: integer }),
      status_txt: string,
      checks: {
        type: 'object',
        description: 'GET /_health only: what answers and what does not',
        additionalProperties: { type: 'string', enum: ['up', 'down', 'in progress'] },
      },
    },
    ['checks']
  ),
};
