/**
 * The error table: every refusal the API can answer with, one row each (status, code, message, and
 * the conditions that answer it). Everything else is made from it: the factories `errors.x(...)`
 * (api-error.ts), the OpenAPI document's examples (openapi/error-examples.ts) and docs/api.md's table
 * (`npm run docs:errors`, tools/docs/errors.js). tests/docs/errors.test.ts fails when they drift.
 *
 * A message says what to do where the client can do something (docs/api.md, "Errors"); the codes
 * and statuses are imgbb's (100 to 314) or ours, and never change.
 */

/** A condition that answers with a row: docs/api.md's words for it, and the arguments of its example. */
export interface ErrorCase<A extends unknown[]> {
  when: string;
  sample: NoInfer<A>;
}

export interface ErrorRow<A extends unknown[]> {
  status: number;
  code: number;
  message: (...args: A) => string;
  /** Extra response headers (Retry-After, ...). */
  headers?: NoInfer<(...args: A) => Record<string, string>>;
  /** A refused URL host: a HostRefusal (sources/media-library-import.ts gives one message for all). */
  host?: true;
  /** Answered by one kind of route alone: the OpenAPI document lists it there only. */
  only?: 'upload' | 'transform' | 'report';
  /** Every condition that answers with this row, in docs/api.md's order: each is an example in the OpenAPI document. */
  cases: ErrorCase<A>[];
}

const row = <A extends unknown[]>(definition: ErrorRow<A>): ErrorRow<A> => definition;

const megabytes = (bytes: number) => `${+(bytes / 1_000_000).toFixed(1)} MB`;
const megapixels = (pixels: number) => +(pixels / 1_000_000).toFixed(3);
const retryAfter = (seconds: number) => ({ 'Retry-After': String(seconds) });
/** The image types as clients name them (the extension). */
const typeName = (type: string) => (type === 'jpeg' ? 'jpg' : type);

export const ERROR_TABLE = {
  noKey: row({ status: 401, code: 100, message: () => 'No API key provided', cases: [{ when: 'no key', sample: [] }] }),
  invalidKey: row({ status: 401, code: 100, message: () => 'Invalid API key', cases: [{ when: 'unknown key', sample: [] }] }),
  revokedKey: row({ status: 403, code: 100, message: () => 'API key revoked', cases: [{ when: 'revoked key', sample: [] }] }),
  expiredKey: row({ status: 403, code: 100, message: () => 'API key expired', cases: [{ when: 'expired key', sample: [] }] }),
  /** A key that refuses duplicates got the bytes of one of its live images again (docs/api.md, "Duplicates and quotas"). */
  duplicated: row({
    status: 409, code: 101, only: 'upload',
    message: (viewerUrl: string) => `Duplicated upload: ${viewerUrl}`,
    cases: [{ when: 'the key refuses duplicates and these bytes are one of its live images (its `url_viewer`)', sample: ['https://img.example.com/image/Ab12Cd34Ef'] }],
  }),
  /** A key's `quota_images` or `quota_bytes` would be passed (docs/api.md, "Duplicates and quotas"). */
  quotaExceeded: row({
    status: 403, code: 105, only: 'upload',
    message: (what: string) => `Quota exceeded: ${what}`,
    cases: [
      { when: 'the key is at its `quota_images`', sample: ['at most 1000 images for this key'] },
      { when: 'the upload would take the key past its `quota_bytes`', sample: ['at most 5 GB of images for this key'] },
    ],
  }),
  /** An upload scored past its key's threshold, the key refusing such uploads (docs/moderation.md). */
  refusedByModeration: row({
    status: 422, code: 106, only: 'upload',
    message: () => 'Image refused by moderation',
    cases: [{ when: "the key's moderation is `refuse` and the image's NSFW score is at or past its threshold, or the client sent `nsfw=1`", sample: [] }],
  }),
  /** An upload matching the blocklist: an exact hash, or a PDQ fingerprint within `moderation.blockDistance` (docs/moderation.md). */
  blockedContent: row({
    status: 403, code: 107, only: 'upload',
    message: () => 'Blocked content',
    cases: [{ when: 'the image is on the blocklist: its SHA-256 or MD5, or a perceptual fingerprint close to a blocked one', sample: [] }],
  }),
  badVersion: row({ status: 400, code: 110, message: () => 'Invalid API version', cases: [{ when: 'version other than 1 (`/api/2/upload`)', sample: [] }] }),
  badAction: row({
    status: 400, code: 120,
    message: () => 'Invalid API action',
    cases: [{ when: 'an action that does not exist (`/api/1/frobnicate`, `/api/1/upload/x`), or `action=` another', sample: [] }],
  }),
  emptySource: row({
    status: 400, code: 130,
    message: () => 'Empty upload source: send the image in the `source` field (a file, its base64, or an http(s) URL)',
    cases: [{ when: 'no source (or an empty one)', sample: [] }],
  }),
  noImageId: row({ status: 400, code: 130, message: () => 'No image id provided', cases: [{ when: 'a delete without `id`', sample: [] }] }),
  base64ViaGet: row({
    status: 400, code: 130,
    message: () => 'Upload using base64 source must be done using POST method',
    cases: [{ when: 'base64 sent with GET (also a GET whose URL is over the header limit with a text `source`)', sample: [] }],
  }),
  badBase64: row({ status: 400, code: 120, message: () => 'Invalid base64 string', cases: [{ when: 'bad base64', sample: [] }] }),
  /** A text source that is no base64 and looks like a file's name or path: the client meant to send the file. */
  fileNameAsSource: row({
    status: 400, code: 120,
    message: () => 'Invalid base64 string: the source looks like a file name; send the file itself as multipart/form-data (curl -F "source=@cat.jpg")',
    cases: [{ when: 'a text source that looks like a file name (`cat.jpg`, `C:\\Photos\\cat.png`, `@cat.jpg`)', sample: [] }],
  }),
  badFormat: row({
    status: 400, code: 140,
    message: (formats: readonly string[]) => `Invalid format: use one of ${formats.join(', ')}`,
    cases: [{ when: 'bad `format` value', sample: [['json', 'txt', 'redirect']] }],
  }),
  invalidExpiration: row({
    status: 400, code: 150,
    message: (min: number, max: number) => `Invalid expiration: seconds or an ISO 8601 duration (PT10M, P1D), from ${min} to ${max} seconds`,
    cases: [{ when: '`expiration` not seconds or a duration, or out of range', sample: [60, 15_552_000] }],
  }),
  invalidAlbum: row({
    status: 400, code: 160,
    message: () => 'Invalid album: album_id must be the id of a folder that GET /api/1/albums lists for this key',
    cases: [{ when: '`album_id` unknown, not a number, or outside the key\'s folder', sample: [] }],
  }),
  invalidWidth: row({
    status: 400, code: 170,
    message: () => 'Invalid width: width is the number of pixels to resize the stored image to (a whole number from 1; its height follows)',
    cases: [{ when: '`width` not a positive integer', sample: [] }],
  }),
  imageNotFound: row({
    status: 404, code: 404,
    message: () => 'Image not found',
    cases: [
      { when: 'a delete of an unknown, expired or someone else\'s image (and a wrong delete link, JSON asked)', sample: [] },
      { when: 'a transformation of a source that is not one of this service\'s live images', sample: [] },
    ],
  }),
  /** A path under the API that names nothing (a file of the docs page that does not exist). */
  notFound: row({ status: 404, code: 404, message: () => 'Not found', cases: [{ when: 'a file of the docs page that does not exist (`/api/1/docs/x.js`)', sample: [] }] }),
  methodNotAllowed: row({
    status: 405, code: 405,
    message: () => 'Method not allowed: use POST (or GET)',
    cases: [{ when: 'a method other than GET/POST (and OPTIONS)', sample: [] }],
  }),
  notAnImage: row({
    status: 400, code: 310,
    message: () => "Can't get target upload source info: the file is not an image",
    cases: [{ when: 'not an image (HTML, PDF, random bytes...)', sample: [] }],
  }),
  invalidImage: row({
    status: 400, code: 311,
    message: (detail?: string) => (detail ? `Invalid image: ${detail}` : 'Invalid image'),
    cases: [
      { when: 'corrupt image', sample: [] },
      { when: 'truncated image, zero dimensions', sample: ['truncated'] },
    ],
  }),
  disabledType: row({
    status: 415, code: 314,
    message: (type: string, accepted: readonly string[]) => `Disabled image format (${typeName(type)}): this service accepts ${accepted.map(typeName).join(', ')}`,
    cases: [{
      when: 'an image type that is not allowed (SVG, TIFF, JPEG 2000, HEIF that is neither HEIC nor AVIF; or one an operator left out of `allowedTypes`)',
      sample: ['svg', ['jpeg', 'png', 'gif', 'webp', 'bmp', 'heic', 'avif']],
    }],
  }),
  tooBig: row({
    status: 413, code: 313,
    message: (maxBytes: number) => `File too big - max ${megabytes(maxBytes)}`,
    cases: [{ when: 'over the byte limit (file, base64, URL body, or the request body itself)', sample: [10_000_000] }],
  }),
  /** A file the upload would store (a re-encoded original: `width`, metadata removed, BMP, HEIC) is past the byte limit. */
  storedTooBig: row({
    status: 413, code: 313,
    message: (maxBytes: number) => `File too big - max ${megabytes(maxBytes)} as stored`,
    cases: [{ when: 'a file to store larger than `maxBytes` once made (resized with `width`, an AVIF re-encoded to remove metadata, HEIC as JPEG)', sample: [10_000_000] }],
  }),
  tooManyPixels: row({
    status: 413, code: 315,
    message: (maxPixels: number) => `Image too large - max ${megapixels(maxPixels)} megapixels`,
    cases: [{ when: 'over the pixel limit (an image, or a frame of an animation)', sample: [100_000_000] }],
  }),
  tooManyFrames: row({
    status: 413, code: 315,
    message: (maxFrames: number) => `Animation too long - max ${maxFrames} frames`,
    cases: [{ when: 'an animation of more frames than `maxAnimationFrames` (500)', sample: [500] }],
  }),
  animationTooLarge: row({
    status: 413, code: 315,
    message: (maxPixels: number) => `Animation too large - max ${megapixels(maxPixels)} megapixels in all its frames`,
    cases: [{ when: 'an animation of more pixels in all its frames than `maxAnimationPixels` (20 MP)', sample: [20_000_000] }],
  }),
  gifTooLarge: row({
    status: 413, code: 315,
    message: (maxPixels: number) => `GIF too large - max ${megapixels(maxPixels)} megapixels`,
    cases: [{ when: 'a still GIF of more pixels than `maxAnimationPixels` (its decoder holds a whole frame)', sample: [20_000_000] }],
  }),
  urlRefused: row({
    status: 400, code: 320,
    message: (reason: string) => reason,
    cases: [{ when: 'URL: unsupported or mistyped scheme (`file:`, `ftp:`, `https:/host`)', sample: ['Unsupported URL scheme (ftp)'] }],
  }),
  /** A Windows path (`C:\Photos\cat.png`) reads as a URL of scheme `c`: the client meant to send the file. */
  filePathAsSource: row({
    status: 400, code: 320,
    message: (scheme: string) =>
      `Unsupported URL scheme (${scheme}): the source looks like a path on your computer; send the file itself as multipart/form-data (curl -F "source=@cat.jpg")`,
    cases: [{ when: 'URL: a Windows file path (`C:\\Photos\\cat.png`, whose `C:` reads as a scheme)', sample: ['c'] }],
  }),
  hostRefused: row({
    status: 400, code: 320, host: true,
    message: (reason: string) => reason,
    cases: [{ when: 'URL: a host without a public address', sample: ['URL resolves to a non-public address (private)'] }],
  }),
  urlFailed: row({
    status: 400, code: 321,
    message: (reason: string) => reason,
    cases: [{ when: 'URL: unreachable, timeout, non-2xx, too many redirects', sample: ['Source URL answered HTTP 404'] }],
  }),
  hostUnresolved: row({
    status: 400, code: 321, host: true,
    message: (host: string) => `Could not resolve host ${host}`,
    cases: [{ when: 'URL: a host that does not resolve', sample: ['nowhere.invalid'] }],
  }),
  badRequest: row({
    status: 400, code: 400,
    message: (reason: string) => reason,
    cases: [
      { when: 'malformed body (broken JSON, multipart)', sample: ['Malformed request body'] },
      { when: 'a body that cannot be an upload (JSON nested deeper than 8 or with over 1,000 keys and items; over 100 fields)', sample: ['Malformed request body: nested too deeply'] },
      { when: 'a report without a reason from the list, or with a text over 1,000 characters', sample: ['Invalid report: reason must be one of sexual, violence, hate, illegal, spam, copyright, other'] },
    ],
  }),
  /** A small body (a viewer's report, `POST /image/<id>/report`) past its few kilobytes (http/small-body.ts). */
  bodyTooLarge: row({
    status: 413, code: 413, only: 'report',
    message: (maxBytes: number) => `Request body too large: at most ${maxBytes} bytes`,
    cases: [{ when: 'a report\'s body over 10 KB (refused before it is read when its length says so)', sample: [10240] }],
  }),
  idempotencyKey: row({
    status: 400, code: 400,
    message: () => 'Invalid Idempotency-Key: 1 to 255 visible ASCII characters',
    cases: [{ when: '`Idempotency-Key` header not 1 to 255 visible ASCII characters', sample: [] }],
  }),
  bodyStalled: row({
    status: 408, code: 408,
    message: () => 'Request timeout: the body stalled',
    cases: [{ when: 'a request body that stalls (no byte for 10 s, or under 1 KB/s over 10 s)', sample: [] }],
  }),
  bodyTooSlow: row({
    status: 408, code: 408,
    message: () => 'Request timeout: the body did not arrive in time',
    cases: [{ when: 'a request body not arrived whole 120 s after the request (`bodyTimeoutMs`)', sample: [] }],
  }),
  requestTimeout: row({
    status: 408, code: 408,
    message: () => 'Request timeout: the request did not arrive in time',
    cases: [{ when: 'request line and headers not arrived in time (Node\'s `headersTimeout`, `requestTimeout`)', sample: [] }],
  }),
  headersTooLarge: row({
    status: 431, code: 431,
    message: () => 'Request header fields too large: send long values in the body, with POST',
    cases: [{ when: 'request line and headers over Node\'s limit (about 16 KB)', sample: [] }],
  }),
  rateLimited: row({
    status: 429, code: 429,
    message: (message: string, _headers: Record<string, string>) => message,
    headers: (_message, headers) => headers,
    cases: [
      { when: 'rate limit of the key', sample: ['Rate limit exceeded: 50 uploads per minute', retryAfter(12)] },
      { when: 'too many failed authentications from the address', sample: ['Too many failed authentication attempts: at most 10 per minute', retryAfter(30)] },
      { when: 'too many reports from the address (`moderation.reportsPerAddress`)', sample: ['Rate limit exceeded: 5 reports per hour', retryAfter(600)] },
    ],
  }),
  /** One client address holds its share of the uploads (or transformation renders) in flight (operations/request-gate.ts). */
  addressBusy: row({
    status: 429, code: 429,
    message: (maxPerAddress: number, _retryAfterSeconds: number, work: 'uploads' | 'renders' = 'uploads') =>
      `Too many ${work} at once from this address: at most ${maxPerAddress}`,
    headers: (_max, retryAfterSeconds) => retryAfter(retryAfterSeconds),
    cases: [
      { when: 'more uploads in flight from one client address than its share (`maxRequestsPerAddress`: 4), refused before the body is read', sample: [4, 2] },
      { when: 'more renders in flight from one client address than its share (`maxRendersPerAddress`: 4)', sample: [4, 2, 'renders'] },
    ],
  }),
  internal: row({ status: 500, code: 500, message: () => 'Internal error', cases: [{ when: 'anything unexpected', sample: [] }] }),
  databaseUnavailable: row({
    status: 503, code: 503,
    message: (_retryAfterSeconds: number) => 'Service unavailable: the database is not answering',
    headers: (retryAfterSeconds) => retryAfter(retryAfterSeconds),
    cases: [{ when: 'the database does not answer (stopped, hung past the statement timeout, no connection)', sample: [5] }],
  }),
  /** A dependency does not answer (this instance is shutting down or full): come back later. */
  unavailable: row({
    status: 503, code: 503,
    message: (what: string, _retryAfterSeconds: number) => `Service unavailable: ${what}`,
    headers: (_what, retryAfterSeconds) => retryAfter(retryAfterSeconds),
    cases: [
      { when: 'too many uploads in flight on this instance (`maxRequestsInFlight`, `maxBodyBytesInFlight`), refused before the body is read', sample: ['too many uploads in progress, try again shortly', 2] },
      { when: 'too many renders in flight on this instance (`maxRendersInFlight`: 16)', sample: ['too many renders in progress, try again shortly', 2] },
      { when: 'the instance is shutting down (SIGTERM)', sample: ['shutting down', 2] },
      { when: "an upload that moderation classifies, and the classifier failed or took too long (docs/moderation.md): nothing stored", sample: ['the image could not be classified, try again shortly', 5] },
    ],
  }),
  insufficientStorage: row({ status: 507, code: 507, message: () => 'Insufficient storage', cases: [{ when: 'the disk (or the storage\'s quota) is full', sample: [] }] }),
  invalidTransformation: row({
    status: 400, code: 180, only: 'transform',
    message: (detail: string) => `Invalid transformation: ${detail}`,
    cases: [
      { when: 'a transformation URL with an unknown option, a malformed value, an unknown preset, a result over `maxTransformPixels` or a `dpr` over 4', sample: ['unknown option "blur"'] },
      { when: 'an animated transformation result whose frames, at the size they are scaled to, pass `maxAnimationPixels` (20 MP) in all', sample: ['the animated result would exceed 20000000 pixels in all its frames'] },
      { when: 'an unsigned transformation URL (presets alone, or any when no key is set) that names GIF', sample: ['GIF output needs a signed URL'] },
    ],
  }),
  invalidSignature: row({
    status: 403, code: 181, only: 'transform',
    message: () => 'Invalid signature: sign the URL with the transformation key and salt, or use presets alone (pr:name), which need no signature',
    cases: [{ when: 'a transformation URL unsigned or wrongly signed (key and salt set; presets alone need none)', sample: [] }],
  }),
};

export type ErrorName = keyof typeof ERROR_TABLE;

/** The arguments of a row's factory. */
export type ErrorArgs<N extends ErrorName> = (typeof ERROR_TABLE)[N] extends ErrorRow<infer A> ? A : never;

/** What an error's message and headers are, from its row and arguments. */
export function render<N extends ErrorName>(name: N, args: ErrorArgs<N>) {
  const definition = ERROR_TABLE[name] as unknown as ErrorRow<ErrorArgs<N>>;
  return {
    status: definition.status,
    code: definition.code,
    message: definition.message(...args),
    headers: definition.headers?.(...args) ?? {},
    host: definition.host === true,
  };
}
