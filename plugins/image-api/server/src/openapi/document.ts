/**
 * The OpenAPI 3.1 document of the API (served at GET /api/1/openapi.json, rendered at /api/1/docs):
 * every route, every parameter with where it may come from, every answer with its exact type. Built
 * from the code's own data (the error table, the options), so it moves with the behaviour; the API
 * tests validate every answer they receive against it.
 */
import { errorRows, REPORT_CODES, TRANSFORM_CODES, UPLOAD_CODES } from './error-examples';
import { schemas } from './schemas';
import { REPORT_REASONS } from '../config/constants';

export interface DocumentOptions {
  /** The public base URL (servers[0]). */
  publicUrl: string;
  /** The imgbb dialect's path, or null when it is off. */
  imgbbPath: string | null;
  /** The transformations' path, or null when they are off. */
  transformPath: string | null;
  cacheMaxAgeSeconds: number;
  maxBytes: number;
  minExpiration: number;
  maxExpiration: number;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const text = { type: 'string' } as const;

/** A parameter read from the query string, and equally from the body's fields (docs/api.md, "Parameters"). */
const param = (name: string, description: string, schema: Record<string, unknown> = text) => ({
  name,
  in: 'query',
  required: false,
  description: `${description} Also accepted as a field of the body (urlencoded, multipart or JSON); a body value wins over the query's.`,
  schema,
});

const KEY_PARAMS = [
  {
    name: 'X-API-Key',
    in: 'header',
    required: false,
    description: 'The API key. Checked before the `key` parameter.',
    schema: text,
  },
  param('key', 'The API key, when the X-API-Key header is not sent.'),
];

const FORMAT = param('format', 'How to answer: `json` (default), `txt` (the direct URL, or the error message, as text) or `redirect` (302 to the viewer page).', {
  type: 'string',
  enum: ['json', 'txt', 'redirect'],
  default: 'json',
});

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes a retried upload safe: a repeat (per API key, 24 h) answers the first upload\'s answer with `Idempotent-Replayed: true` and stores nothing.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function uploadParams(options: DocumentOptions, dialect: 'api' | 'imgbb') {
  const source = dialect === 'api' ? 'source' : 'image';
  return [
    ...KEY_PARAMS,
    ...(dialect === 'api' ? [param('action', 'Optional; `upload` if sent.', { type: 'string', enum: ['upload'] })] : []),
    param(
      source,
      `The image: a URL (http or https; GET or POST) or base64 (POST only; a data: prefix, the URL-safe alphabet and missing padding are accepted). A multipart file part named \`${source}\` is the third way.` +
        (dialect === 'api' ? ' `image` is accepted too, and then the answer is in imgbb\'s shape.' : ''),
    ),
    FORMAT,
    param('title', 'A title (at most 100 characters are kept). `name` is its alias.'),
    param('name', 'Alias of `title` (imgbb\'s name for it).'),
    param('description', 'A description.'),
    param('nsfw', '`1` or `true` marks the image not safe for work.', { type: 'string' }),
    param('width', 'Resize the stored original to this width (never enlarged).', { type: 'string', pattern: '^\\d+$' }),
    param('album_id', 'The id of a Media Library folder the key may upload to (GET /api/1/albums).', { type: 'string', pattern: '^\\d+$' }),
    param(
      'expiration',
      `Seconds (\`600\`) or an ISO 8601 duration (\`PT10M\`, \`P1D\`), from ${options.minExpiration} to ${options.maxExpiration} seconds. Absent: the key's default, if any.`,
    ),
    IDEMPOTENCY_KEY,
  ];
}

/** The body an upload may carry: the same fields as the query, in any of three encodings. */
function uploadBody(dialect: 'api' | 'imgbb') {
  const source = dialect === 'api' ? 'source' : 'image';
  const fields = {
    type: 'object',
    properties: {
      key: text,
      [source]: { type: 'string', description: 'A URL or base64; in multipart, a file part too' },
      format: text,
      title: text,
      name: text,
      description: text,
      nsfw: text,
      width: text,
      album_id: text,
      expiration: text,
    },
  };
  const multipart = { ...fields, properties: { ...fields.properties, [source]: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The image file, or a URL or base64 as text' } } };
  return {
    required: false,
    description: 'The parameters as body fields (the query string works too). GET uploads carry none.',
    content: {
      'multipart/form-data': { schema: multipart },
      'application/x-www-form-urlencoded': { schema: fields },
      'application/json': { schema: fields },
    },
  };
}

/** The codes of the API's routes, and those of the transformation route (which answers JSON only). */
const apiCodes = (code: number) => !TRANSFORM_CODES.includes(code) && !REPORT_CODES.includes(code);
/** The other keyed routes (delete, albums) never refuse as a duplicate or past a quota. */
const keyedCodes = (code: number) => apiCodes(code) && !UPLOAD_CODES.includes(code);
/** A viewer's report: its body's refusals, 404, its address's rate limit, and outages. */
const reportCodes = (code: number) => REPORT_CODES.includes(code) || [400, 404, 408, 429, 500, 503, 507].includes(code);
const transformCodes = (code: number) => TRANSFORM_CODES.includes(code) || [404, 429, 500, 503].includes(code);

/** Every error answer, by status: the error shape as JSON, or its message as text (format=txt, redirect). */
function errorResponses(statuses?: number[], codes = apiCodes) {
  const responses: Record<string, unknown> = {};
  for (const row of errorRows(codes)) {
    if (statuses && !statuses.includes(row.status)) continue;
    responses[String(row.status)] = {
      description: `Refused: code ${row.codes.join(', ')}.`,
      headers:
        row.status === 429 || row.status === 503
          ? { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'string', pattern: '^\\d+$' } } }
          : undefined,
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('Error'),
              { properties: { status_code: { const: row.status }, error: { properties: { code: { enum: row.codes } } } } },
            ],
          },
          examples: row.examples,
        },
        'text/plain': { schema: { type: 'string', description: 'format=txt or redirect: the message alone' } },
      },
    };
  }
  return responses;
}

/** Refusals that come before any action: the body, the load, the connection. */
const ANY_REQUEST = [400, 405, 408, 413, 431, 500, 503, 507];

const uploadSuccess = (dialect: 'api' | 'imgbb') => ({
  '200': {
    description: dialect === 'api' ? 'Stored. With `image` (not `source`) as the field, the answer is imgbb\'s shape.' : 'Stored.',
    headers: {
      'X-RateLimit-Limit': { schema: { type: 'string' } },
      'X-RateLimit-Remaining': { schema: { type: 'string' } },
      'Idempotent-Replayed': { description: 'A repeat of an Idempotency-Key', schema: { const: 'true' } },
    },
    content: {
      'application/json': {
        schema: dialect === 'api' ? { oneOf: [ref('UploadSuccess'), ref('ImgbbUploadSuccess')] } : ref('ImgbbUploadSuccess'),
      },
      'text/plain': { schema: { type: 'string', format: 'uri', description: 'format=txt: the direct URL' } },
    },
  },
  '302': {
    description: 'format=redirect: to the viewer page',
    headers: { Location: { required: true, schema: { type: 'string', format: 'uri' } } },
  },
});

const uploadOperation = (options: DocumentOptions, dialect: 'api' | 'imgbb', method: 'get' | 'post') => ({
  operationId: `${dialect === 'api' ? 'upload' : 'imgbbUpload'}${method === 'get' ? 'Get' : ''}`,
  tags: [dialect === 'api' ? 'Upload' : 'imgbb dialect'],
  summary:
    dialect === 'api'
      ? `Upload an image${method === 'get' ? ' from a URL, with GET' : ''}`
      : `Upload an image, as imgbb clients do${method === 'get' ? ' (GET, URL sources)' : ''}`,
  description: `One image, as a multipart file, base64 (POST only) or a URL; at most ${options.maxBytes} bytes. Trailing slash optional.`,
  parameters: uploadParams(options, dialect),
  ...(method === 'post' ? { requestBody: uploadBody(dialect) } : {}),
  responses: { ...uploadSuccess(dialect), ...errorResponses([...ANY_REQUEST, 401, 403, 409, 415, 422, 429]) },
});

const keyedOperation = (id: string, summary: string, extra: Record<string, unknown>[], success: Record<string, unknown>, statuses: number[]) => ({
  operationId: id,
  tags: ['Images'],
  summary,
  parameters: [...KEY_PARAMS, ...extra],
  responses: { ...success, ...errorResponses([...ANY_REQUEST, 401, 403, ...statuses], keyedCodes) },
});

/** Error answers of a page's form: the error shape as JSON when asked, else a page. */
const htmlToo = (responses: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const { content, ...rest } = response as { content: Record<string, unknown> };
      return [status, { ...rest, content: { 'application/json': content['application/json'], 'text/html': { schema: { type: 'string' } } } }];
    })
  );
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const ID = { name: 'id', in: 'path', required: true, description: 'The image\'s id_encoded', schema: { type: 'string' } };
const SECRET = { name: 'secret', in: 'path', required: true, description: 'The secret of the delete link', schema: { type: 'string' } };

/** The image types the service answers with. */
const imageContent = () =>
  Object.fromEntries(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }]));

/** The answers of immutable image bytes (docs/api.md, "Direct URLs"). */
const imageAnswers = (maxAge: number, varies: boolean) => ({
  '200': {
    description: `The image. \`Cache-Control: public, max-age=${maxAge}, immutable\`, a strong ETag, Last-Modified${varies ? ', `Vary: Accept` when the format was negotiated' : ''}.`,
    headers: {
      ETag: { schema: { type: 'string' } },
      'Cache-Control': { schema: { type: 'string' } },
      'Surrogate-Key': { description: 'Cache tags naming the image, space-separated: `img-<id_encoded>` and `image-api`, for the caches in front that a deletion purges', schema: { type: 'string' } },
      'Cache-Tag': { description: 'The same tags, comma-separated (Cloudflare)', schema: { type: 'string' } },
    },
    content: imageContent(),
  },
  '206': { description: 'One range of the image (`Range: bytes=...`)', content: imageContent() },
  '304': { description: 'Not modified (If-None-Match, If-Modified-Since)' },
  '416': { description: 'The range is not in the image', content: { 'text/plain': { schema: { type: 'string' } } } },
});

/** Direct URLs: an API image's answers, and any type for the Media Library's other files (served by Strapi). */
function directAnswers(maxAge: number) {
  const answers = imageAnswers(maxAge, false);
  const other = { '*/*': { schema: { type: 'string', format: 'binary' } } };
  return {
    ...answers,
    '200': { ...answers['200'], content: { ...answers['200'].content, ...other } },
    '206': { ...answers['206'], content: { ...answers['206'].content, ...other } },
  };
}

function servingPaths(options: DocumentOptions): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    '/uploads/{file}': {
      parameters: [{ name: 'file', in: 'path', required: true, description: 'A stored file name (`url`, `thumb.url`, `medium.url`)', schema: { type: 'string' } }],
      get: {
        operationId: 'directImage',
        tags: ['Serving'],
        summary: 'A direct image URL, served by the app with the local provider (S3 serves its own)',
        description:
          "The file's name as stored: any other spelling of a path under `/uploads` (`//`, `./`, `..`, percent-encoded, upper case, a trailing slash) answers 404. The Media Library's other files are served here too, in their own type: any but a JPEG, PNG, GIF, WebP, AVIF or BMP as a download that runs nothing (`Content-Disposition: attachment`, `Content-Security-Policy: sandbox`, `X-Content-Type-Options: nosniff`).",
        responses: {
          ...directAnswers(options.cacheMaxAgeSeconds),
          '404': { description: 'Deleted, expired or never stored, a kept transformation result, or another spelling: `Cache-Control: no-store`', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
  };
  if (options.transformPath) {
    paths[`${options.transformPath}/{signature}/{processing}`] = {
      parameters: [
        { name: 'signature', in: 'path', required: true, description: "imgproxy's signature of the rest of the path, or any text when the options are presets alone or no key is set", schema: { type: 'string' } },
        {
          name: 'processing',
          in: 'path',
          required: true,
          description:
            "imgproxy's processing options, one per segment (`rs:fill:300:200`, `w:300`, `h`, `dpr`, `el`, `g:fp:0.3:0.6`, `q`, `f`, `pr:small`...), then the source: `plain/{direct URL}[@{extension}]` or base64url of the direct URL `[.{extension}]`. Spans several segments.",
          schema: { type: 'string', pattern: '^.+$' },
        },
      ],
      get: {
        operationId: 'transformImage',
        tags: ['Serving'],
        summary: "Any size and format of one of this service's images, in imgproxy's URL format",
        responses: {
          ...imageAnswers(options.cacheMaxAgeSeconds, true),
          ...errorResponses([400, 403, 404, 429, 500, 503], transformCodes),
        },
      },
    };
  }
  return paths;
}

export function openApiDocument(options: DocumentOptions) {
  const deleteJson = {
    '200': {
      description: 'Deleted',
      content: { 'application/json': { schema: ref('DeleteSuccess') }, 'text/html': { schema: { type: 'string' } } },
    },
    ...errorResponses([404, 500, 503]),
  };
  const paths: Record<string, unknown> = {
    '/api/1/upload': { get: uploadOperation(options, 'api', 'get'), post: uploadOperation(options, 'api', 'post') },
    '/api/1/delete': Object.fromEntries(
      (['get', 'post'] as const).map((method) => [
        method,
        keyedOperation(
          method === 'get' ? 'deleteImageGet' : 'deleteImage',
          'Delete an image uploaded with the key (or another key of the same owner)',
          [param('id', 'The image\'s id_encoded.'), FORMAT],
          {
            '200': {
              description: 'Deleted',
              content: { 'application/json': { schema: ref('DeleteSuccess') }, 'text/plain': { schema: { const: 'deleted' } } },
            },
          },
          [404, 429],
        ),
      ])
    ),
    // GET and POST, as for the other keyed routes: a form client sends its key in the body.
    '/api/1/albums': Object.fromEntries(
      (['get', 'post'] as const).map((method) => [
        method,
        keyedOperation(
          method === 'get' ? 'listAlbums' : 'listAlbumsPost',
          'The Media Library folders the key may upload to',
          [],
          { '200': { description: 'The albums', content: { 'application/json': { schema: ref('AlbumsSuccess') } } } },
          [429],
        ),
      ])
    ),
    '/api/{version}/{action}': {
      description: 'Any other version or action, with any method: refused in the error shape (the version and the action are judged before the method).',
      parameters: [
        { name: 'version', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
        { name: 'action', in: 'path', required: true, schema: { type: 'string' } },
      ],
      ...Object.fromEntries(
        (['get', 'post', 'put', 'patch', 'delete'] as const).map((method) => [method, { operationId: `otherAction${method}`, tags: ['Upload'], summary: 'Unknown version (110) or action (120)', responses: errorResponses(ANY_REQUEST) }])
      ),
    },
    '/image/{id}': {
      get: {
        operationId: 'viewer',
        tags: ['Pages'],
        summary: 'The viewer page (url_viewer): the image, its title, size and views; counts a view',
        parameters: [ID],
        responses: { '200': html('The page'), '404': html('Unknown, deleted or expired image'), '503': html('The database is not answering') },
      },
    },
    '/image/{id}/report': {
      post: {
        operationId: 'report',
        tags: ['Pages'],
        summary: 'A viewer\'s report of the image (the viewer page\'s form): `reason` (sexual, violence, hate, illegal, spam, copyright, other) and an optional `text` (at most 1,000 characters), as a form or JSON, in at most 10 KB; no key. One per address and image, `moderation.reportsPerAddress` per address; a repeat, or one past `moderation.reportsPerImage`, is answered as received and not kept.',
        parameters: [ID],
        requestBody: {
          required: true,
          content: Object.fromEntries(
            ['application/x-www-form-urlencoded', 'application/json'].map((type) => [
              type,
              { schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string', enum: [...REPORT_REASONS] }, text: { type: 'string', maxLength: 1000 } } } },
            ])
          ),
        },
        responses: {
          '200': { description: 'Received (JSON asked: a JSON body, or Accept)', content: { 'application/json': { schema: ref('ReportSuccess') } } },
          '303': { description: 'Received (a form): back to the viewer page, `?reported=1`', headers: { Location: { schema: { type: 'string' } } } },
          ...htmlToo(errorResponses([400, 404, 408, 413, 429, 500, 503, 507], reportCodes)),
        },
      },
    },
    '/image/{id}/delete/{secret}': {
      parameters: [ID, SECRET],
      get: {
        operationId: 'confirmDelete',
        tags: ['Pages'],
        summary: 'The delete link (delete_url): a confirmation page; never deletes',
        responses: { '200': html('The confirmation page, its button POSTs back'), '404': html('Wrong secret, unknown or deleted image'), '503': html('The database is not answering') },
      },
      post: {
        operationId: 'deleteByLink',
        tags: ['Pages'],
        summary: 'Delete by the link: an HTML page, or JSON with Accept: application/json',
        responses: { ...deleteJson, '404': { description: 'Wrong secret, unknown or deleted image', content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ref('Error') } } } },
      },
      delete: {
        operationId: 'deleteByLinkJson',
        tags: ['Pages'],
        summary: 'Delete by the link, JSON',
        responses: { ...deleteJson, '404': { description: 'Wrong secret, unknown or deleted image', content: { 'application/json': { schema: ref('Error') } } } },
      },
    },
    '/api/1/openapi.json': {
      get: {
        operationId: 'openApiDocument',
        tags: ['About'],
        summary: 'This document',
        responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/api/1/docs': {
      get: { operationId: 'docs', tags: ['About'], summary: 'This document, rendered (no external resources)', responses: { '200': html('The page') } },
    },
    '/_health': {
      get: {
        operationId: 'health',
        tags: ['About'],
        summary: 'Whether this instance can serve (for load balancers)',
        responses: {
          '204': { description: 'The database (and Redis, if configured) answer' },
          '200': {
            description: 'Degraded: the instance serves, without what `degraded` names (Redis: rate limits count in memory meanwhile)',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['status', 'degraded', 'checks'],
                  additionalProperties: false,
                  properties: {
                    status: { const: 'degraded' },
                    degraded: { type: 'array', items: { type: 'string' } },
                    checks: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                },
              },
            },
          },
          '503': {
            description: 'The database does not answer, or the instance is shutting down',
            content: { 'application/json': { schema: ref('Error') } },
          },
        },
      },
    },
  };
  Object.assign(paths, servingPaths(options));
  if (options.imgbbPath) {
    paths[options.imgbbPath] = { get: uploadOperation(options, 'imgbb', 'get'), post: uploadOperation(options, 'imgbb', 'post') };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Image API',
      version: '1',
      description:
        'Image hosting in the `/api/1/upload` dialect (and imgbb\'s at ' + (options.imgbbPath ?? '(off)') + '). Each path also answers with a trailing slash.',
    },
    servers: [{ url: options.publicUrl }],
    tags: [
      { name: 'Upload', description: 'The /api/1/upload dialect' },
      { name: 'imgbb dialect', description: 'imgbb\'s path, parameters and answer' },
      { name: 'Images', description: 'Deleting images, albums' },
      { name: 'Pages', description: 'HTML pages for people' },
      { name: 'Serving', description: 'Direct image URLs and transformations in imgproxy\'s URL format (docs/api.md, "Serving images")' },
      { name: 'About', description: 'This document, health' },
    ],
    paths,
    components: { schemas },
  };
}
