/**
 * Every option of the plugin, with its default, its check and its message, in one joi schema; the
 * `ImageApiConfig` type is derived from it. An app sets options in `config/plugins.ts` →
 * `'image-api': { config: { ... } }`; the README's Configuration section lists them.
 */
import Joi from 'joi';
import { parseRateLimit } from './rate-limit';
import { parseAllowlist } from './url-allowlist';
import { compileTrustedProxies } from './trusted-proxies';

export const IMAGE_TYPES = ['jpeg', 'png', 'gif', 'webp', 'bmp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** The debris sweep's shortest age outside test suites (see sweepAfterMs). */
export const MIN_SWEEP_AFTER_MS = 60_000;

// An empty string (an environment variable set to nothing) counts as not set: the default applies.
const positiveInt = () => Joi.number().integer().min(1).empty('');
/** A positive integer, or null for "decided by the plugin" (the option says how). */
const positiveIntOrNull = () => Joi.number<number | null>().integer().min(1).empty('').allow(null).default(null);

/** A value checked by one of the plugin's grammars (the parser's message says what is expected). */
const grammar =
  (parse: (value: never) => unknown) =>
  <T>(value: T): T => {
    parse(value as never);
    return value;
  };

const timeZone = <T>(value: T): T => {
  new Intl.DateTimeFormat('en-US', { timeZone: value as string });
  return value;
};

const options = {
  /** Absolute base URL of every URL the API returns; null: Strapi's `server.url`. */
  publicUrl: Joi.string<string | null>().uri({ scheme: ['http', 'https'] }).allow(null).empty('').default(null),
  /** Largest accepted image, in bytes (decoded base64, downloaded URL body, file part). */
  maxBytes: positiveInt().default(10_000_000),
  /** Largest accepted image in pixels (width × height × frames). */
  maxPixels: positiveInt().default(100_000_000),
  /** Image types accepted. */
  allowedTypes: Joi.array()
    .items(Joi.string<ImageType>().valid(...IMAGE_TYPES))
    .min(1)
    .default(() => [...IMAGE_TYPES]),
  /** Edge of the square `.th` variant. */
  thumbSize: positiveInt().default(160),
  /** Width of the `.md` variant (never scaled up). */
  mediumWidth: positiveInt().default(500),
  /** JPEG (and WebP) quality of re-encoded originals and of the variants. */
  jpegQuality: Joi.number().integer().min(1).max(100).empty('').default(85),
  /** IANA time zone of the `date` field. */
  timeZone: Joi.string().custom(timeZone, 'an IANA time zone').empty('').default('UTC'),
  /** URL sources: total time limit in milliseconds. */
  fetchTimeoutMs: positiveInt().default(15_000),
  /** URL sources: redirects followed at most. */
  fetchMaxRedirects: Joi.number().integer().min(0).empty('').default(5),
  /** URL sources: hosts, addresses or CIDR ranges allowed although not public. */
  urlAllowlist: Joi.array()
    .items(Joi.string().allow(''))
    .custom(grammar(parseAllowlist), 'the URL allow-list grammar')
    .default(() => []),
  /**
   * The imgbb dialect's upload path, at the server root (contract §10): imgbb clients need only a new
   * host. null turns it off.
   */
  imgbbPath: Joi.string<string | null>()
    .pattern(/^\/[A-Za-z0-9._~\/-]*[^/]$/, { name: 'absolute path' })
    .allow(null)
    .empty('')
    .default('/1/upload'),
  /** `Access-Control-Allow-Origin` values; `['*']` allows any origin. */
  corsOrigins: Joi.array()
    .items(Joi.string())
    .default(() => ['*']),
  /** Shortest expiration an upload may ask, in seconds. */
  minExpiration: positiveInt().default(60),
  /** Longest expiration an upload may ask, in seconds (180 days). */
  maxExpiration: positiveInt().min(Joi.ref('minExpiration')).default(15_552_000),
  /** How often each instance sweeps expired images away, in seconds. */
  expirySweepSeconds: positiveInt().default(60),
  /**
   * The debris sweep removes crash debris older than this (uploads in flight elsewhere are younger).
   * Never below a minute, which outlasts any upload's write-and-record step; test suites
   * (NODE_ENV=test) may go lower, to see the sweep at work without waiting.
   */
  sweepAfterMs: Joi.number()
    .integer()
    .min(0)
    .custom((ms: number) => {
      if (ms < MIN_SWEEP_AFTER_MS && process.env.NODE_ENV !== 'test') throw new Error(`must be at least ${MIN_SWEEP_AFTER_MS} (ms)`);
      return ms;
    }, 'a safe age')
    .empty('')
    .default(10 * 60 * 1000),
  /** How often each instance runs the debris sweep (crash debris, Idempotency-Key rows past 24 h), in seconds. */
  debrisSweepSeconds: positiveInt().default(300),
  /** Upload-route requests in flight at once per process; past it, 503 with Retry-After before the body is read. */
  maxRequestsInFlight: positiveInt().default(16),
  /** Bytes of request bodies (as declared) in flight at once per process; past it, 503 likewise. */
  maxBodyBytesInFlight: positiveInt().default(200_000_000),
  /**
   * Upload-route requests in flight at once from one client address (as `trustedProxies` tell it);
   * past it, 429 with Retry-After before the body is read. null: a quarter of `maxRequestsInFlight`.
   */
  maxRequestsPerAddress: positiveIntOrNull(),
  /** A request body not wholly arrived this long (ms) after the request came is cut with a 408, however steadily it trickles. */
  bodyTimeoutMs: positiveInt().default(120_000),
  /** A request body with no byte for this long (ms) is cut with a 408. */
  bodyIdleTimeoutMs: positiveInt().default(10_000),
  /** A request body slower than this (bytes/s, averaged over each bodyIdleTimeoutMs) is cut with a 408; 0: silence only. */
  bodyMinBytesPerSecond: Joi.number().integer().min(0).empty('').default(1024),
  /** On shutdown (SIGTERM), how long requests in flight may take to finish before the process exits, ms. */
  shutdownTimeoutMs: Joi.number().integer().min(0).empty('').default(25_000),
  /** Parent of per-request temp folders; null: <os tmpdir>/strapi-image-api. */
  tmpDir: Joi.string<string | null>().pattern(/^\//, { name: 'absolute path' }).allow(null).empty('').default(null),
  /** Name of the Media Library folder API uploads go to. */
  folderName: Joi.string().pattern(/\S/, { name: 'not blank' }).empty('').default('API uploads'),
  /** How long a key lookup is reused (ms); other instances see a key change within this time. */
  keyCacheMs: Joi.number().integer().min(0).max(5000).empty('').default(2000),
  /** Uploads whose images are processed at once per process; null: one per CPU core. */
  imageConcurrency: positiveIntOrNull(),
  /** libvips threads per image operation (process-wide); null: the cores divided among `imageConcurrency` images, at least one. */
  sharpThreads: positiveIntOrNull(),
  /** V8 heap growth before a full collection, in % of the live heap (process-wide); null: V8's own heuristic. */
  heapGrowingPercent: Joi.number<number | null>().integer().min(1).max(300).allow(null).empty('').default(null),
  /** Block every libvips loader but JPEG, PNG, GIF and WebP, process-wide. */
  blockUnusedDecoders: Joi.boolean().strict().default(true),
  /** Keep EXIF/XMP/IPTC (GPS included) in stored originals and report it in original_exifdata. */
  keepExif: Joi.boolean().strict().default(false),
  /** HMAC secret of API key hashes; null: the admin API token salt. */
  keyHashSecret: Joi.string<string | null>().min(1).allow(null).empty('').default(null),
  /** A key made sure to exist at boot (declarative provisioning). */
  bootstrapKey: Joi.string<string | null>().min(1).allow(null).empty('').default(null),
  /** Uploads per key, e.g. "50/minute,500/hour,1000/day", or "off" (config/rate-limit.ts). A key may override it. */
  rateLimit: Joi.string().allow('').custom(grammar(parseRateLimit), 'the rate-limit grammar').default('50/minute,500/hour,1000/day'),
  /** Failed authentications per client address, e.g. "10/minute", or "off". */
  failedAuthLimit: Joi.string().allow('').custom(grammar(parseRateLimit), 'the rate-limit grammar').default('10/minute'),
  /**
   * Proxies whose X-Forwarded-For is believed for the client's address (addresses, CIDR ranges,
   * `loopback`, `linklocal`, `uniquelocal`); empty: the connection's peer is the client.
   */
  trustedProxies: Joi.array()
    .items(Joi.string().trim().allow(''))
    // An empty entry (an environment variable set to nothing) is none.
    .custom((list: string[]) => grammar(compileTrustedProxies)(list.filter(Boolean)), 'addresses, CIDR ranges or loopback/linklocal/uniquelocal')
    .default(() => []),
  /** Redis for rate-limit counters shared by every instance; null: in-process memory. */
  redisUrl: Joi.string<string | null>().uri({ scheme: ['redis', 'rediss'] }).allow(null).empty('').default(null),
  /** A Redis command slower than this (ms) counts as Redis being down: memory counters answer instead. */
  redisTimeoutMs: positiveInt().default(250),
  /** Prefix of the plugin's Redis keys. */
  redisPrefix: Joi.string().min(1).empty('').default('image-api'),
};

/** The value type a joi schema validates to. */
type ValueOf<S> = S extends { validate(value: unknown): Joi.ValidationResult<infer T> } ? T : never;

/** The plugin's configuration, every option set (defaults filled in). */
export type ImageApiConfig = { [Option in keyof typeof options]: ValueOf<(typeof options)[Option]> };

export const configSchema = Joi.object<ImageApiConfig>(options)
  .unknown(false)
  .prefs({ abortEarly: true, convert: true, errors: { wrap: { label: '"' } } });

/** Checks an app's configuration and fills in the defaults; throws an Error naming the option. */
export function validateConfig(config: unknown): ImageApiConfig {
  const { value, error } = configSchema.validate(config ?? {});
  if (error) throw new Error(`image-api config: ${error.message}`);
  return value;
}
