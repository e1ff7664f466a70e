/**
 * The error table (docs/api.md, "Errors"): every refusal the API can answer with.
 * Throw an `ApiError` anywhere on the upload path; the controller turns it into the answer.
 */
import { STATUS_CODES } from 'http';

export class ApiError extends Error {
  constructor(
    /** HTTP status, mirrored in `status_code`. */
    readonly status: number,
    /** The API's error code, `error.code`. */
    readonly code: number,
    message: string,
    /** Extra response headers (Retry-After, ...). */
    readonly headers: Record<string, string> = {}
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/**
 * A URL's host that has no address the source policy allows, or none at all. Answered as its code
 * says; a class of its own so that the Media Library's imports can give one message for every such
 * host (sources/media-library-import.ts): which internal names resolve is no admin's business.
 */
export class HostRefusal extends ApiError {}

const megabytes = (bytes: number) => `${+(bytes / 1_000_000).toFixed(1)} MB`;
const megapixels = (pixels: number) => +(pixels / 1_000_000).toFixed(3);

/** One factory per row of the table, so wording lives in one place. */
export const errors = {
  noKey: () => new ApiError(401, 100, 'No API key provided'),
  invalidKey: () => new ApiError(401, 100, 'Invalid API key'),
  revokedKey: () => new ApiError(403, 100, 'API key revoked'),
  expiredKey: () => new ApiError(403, 100, 'API key expired'),
  /** A key that refuses duplicates got the bytes of one of its live images again (docs/api.md, "Duplicates and quotas"). */
  duplicated: (viewerUrl: string) => new ApiError(409, 101, `Duplicated upload: ${viewerUrl}`),
  /** A key's `quota_images` or `quota_bytes` would be passed (docs/api.md, "Duplicates and quotas"). */
  quotaExceeded: (what: string) => new ApiError(403, 105, `Quota exceeded: ${what}`),
  badVersion: () => new ApiError(400, 110, 'Invalid API version'),
  badAction: () => new ApiError(400, 120, 'Invalid API action'),
  emptySource: () => new ApiError(400, 130, 'Empty upload source'),
  base64ViaGet: () => new ApiError(400, 130, 'Upload using base64 source must be done using POST method'),
  badBase64: () => new ApiError(400, 120, 'Invalid base64 string'),
  badFormat: () => new ApiError(400, 140, 'Invalid format'),
  invalidExpiration: (min: number, max: number) =>
    new ApiError(400, 150, `Invalid expiration: seconds or an ISO 8601 duration (PT10M, P1D), from ${min} to ${max} seconds`),
  invalidAlbum: () => new ApiError(400, 160, 'Invalid album'),
  invalidWidth: () => new ApiError(400, 170, 'Invalid width'),
  invalidTransformation: (detail: string) => new ApiError(400, 180, `Invalid transformation: ${detail}`),
  invalidSignature: () => new ApiError(403, 181, 'Invalid signature'),
  noImageId: () => new ApiError(400, 130, 'No image id provided'),
  imageNotFound: () => new ApiError(404, 404, 'Image not found'),
  /** A path under the API that names nothing (a file of the docs page that does not exist). */
  notFound: () => new ApiError(404, 404, 'Not found'),
  methodNotAllowed: () => new ApiError(405, 405, 'Method not allowed: use POST (or GET)'),
  notAnImage: () => new ApiError(400, 310, "Can't get target upload source info"),
  invalidImage: (detail?: string) => new ApiError(400, 311, detail ? `Invalid image: ${detail}` : 'Invalid image'),
  disabledType: (type: string) => new ApiError(415, 314, `Disabled image format (${type})`),
  tooBig: (maxBytes: number) => new ApiError(413, 313, `File too big - max ${megabytes(maxBytes)}`),
  /** A file the upload would store (a re-encoded original: `width`, metadata removed, BMP, HEIC) is past the byte limit. */
  storedTooBig: (maxBytes: number) => new ApiError(413, 313, `File too big - max ${megabytes(maxBytes)} as stored`),
  tooManyPixels: (maxPixels: number) => new ApiError(413, 315, `Image too large - max ${megapixels(maxPixels)} megapixels`),
  tooManyFrames: (maxFrames: number) => new ApiError(413, 315, `Animation too long - max ${maxFrames} frames`),
  animationTooLarge: (maxPixels: number) => new ApiError(413, 315, `Animation too large - max ${megapixels(maxPixels)} megapixels in all its frames`),
  gifTooLarge: (maxPixels: number) => new ApiError(413, 315, `GIF too large - max ${megapixels(maxPixels)} megapixels`),
  urlRefused: (reason: string) => new ApiError(400, 320, reason),
  urlFailed: (reason: string) => new ApiError(400, 321, reason),
  hostRefused: (reason: string) => new HostRefusal(400, 320, reason),
  hostUnresolved: (host: string) => new HostRefusal(400, 321, `Could not resolve host ${host}`),
  badRequest: (reason: string) => new ApiError(400, 400, reason),
  rateLimited: (message: string, headers: Record<string, string>) => new ApiError(429, 429, message, headers),
  /** One client address holds its share of the uploads (or transformation renders) in flight (request-gate.ts). */
  addressBusy: (maxPerAddress: number, retryAfterSeconds: number, work: 'uploads' | 'renders' = 'uploads') =>
    new ApiError(429, 429, `Too many ${work} at once from this address: at most ${maxPerAddress}`, { 'Retry-After': String(retryAfterSeconds) }),
  bodyTooSlow: () => new ApiError(408, 408, 'Request timeout: the body did not arrive in time'),
  headersTooLarge: () => new ApiError(431, 431, 'Request header fields too large: send long values in the body, with POST'),
  requestTimeout: () => new ApiError(408, 408, 'Request timeout: the request did not arrive in time'),
  bodyStalled: () => new ApiError(408, 408, 'Request timeout: the body stalled'),
  idempotencyKey: () => new ApiError(400, 400, 'Invalid Idempotency-Key: 1 to 255 visible ASCII characters'),
  internal: () => new ApiError(500, 500, 'Internal error'),
  /** A dependency does not answer (database, or this instance is shutting down or full): come back later. */
  unavailable: (what: string, retryAfterSeconds: number) =>
    new ApiError(503, 503, `Service unavailable: ${what}`, { 'Retry-After': String(retryAfterSeconds) }),
  databaseUnavailable: (retryAfterSeconds: number) =>
    new ApiError(503, 503, 'Service unavailable: the database is not answering', { 'Retry-After': String(retryAfterSeconds) }),
  insufficientStorage: () => new ApiError(507, 507, 'Insufficient storage'),
};

/** The JSON error body (docs/api.md, "Errors"). */
export function errorBody(error: ApiError) {
  return {
    status_code: error.status,
    error: { message: error.message, code: error.code },
    status_txt: STATUS_CODES[error.status] ?? 'Error',
  };
}
