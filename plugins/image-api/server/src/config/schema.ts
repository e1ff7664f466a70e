/**
 * Every option of the plugin, with its default, its check, its message and its description, in one
 * joi schema; the `ImageApiConfig` type is derived from it. An app sets options in
 * `config/plugins.ts` → `'image-api': { config: { ... } }`, and most also through an environment
 * variable (environment.ts's OPTION_VARIABLES). Those with none are set in the config only: what an
 * upload may be and how it is stored (maxBytes, maxPixels, allowedTypes, thumbSize, mediumWidth,
 * jpegQuality, keepExif, folderName, transformPresets) and a few knobs (fetchTimeoutMs,
 * fetchMaxRedirects, keyCacheMs, blockUnusedDecoders): the app's own choices, the same wherever it
 * runs, where the variables carry what a deployment sets (URLs, secrets, Redis, limits sized to the
 * machine). docs/configuration.md's table (its variable column empty for them) is generated from the
 * descriptions here (`npm run docs:options`), and a test fails when it is not.
 */
import Joi from 'joi';
import { MODERATION_MODES } from './constants';
import { parseRateLimit } from './rate-limit';
import { parseAllowlist } from './url-allowlist';
import { compileTrustedProxies } from './trusted-proxies';

export const IMAGE_TYPES = ['jpeg', 'png', 'gif', 'webp', 'bmp', 'heic', 'avif'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** Strapi's responsive breakpoints (and its thumbnail's box), as imgproxy presets. */
export const DEFAULT_PRESETS: Readonly<Record<string, string>> = {
  thumbnail: 'rs:fit:245:156',
  small: 'w:500',
  medium: 'w:750',
  large: 'w:1000',
  xlarge: 'w:1920',
};

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
  publicUrl: Joi.string<string | null>().uri({ scheme: ['http', 'https'] }).allow(null).empty('').default(null)
    .description('Absolute base URL of every URL the API returns; null: Strapi\'s `server.url`.'),
  maxBytes: positiveInt().default(10_000_000)
    .description('Largest accepted image, in bytes (decoded base64, downloaded URL body, file part).'),
  maxPixels: positiveInt().default(100_000_000)
    .description('Largest accepted image in pixels (width × height; of each frame, for an animation); past it, 413 with code 315, read from the header before decoding.'),
  maxAnimationFrames: positiveInt().default(500)
    .description('Most frames of an accepted animation (GIF, WebP); past it, 413 with code 315, counted from the container before decoding.'),
  maxAnimationPixels: positiveInt().default(20_000_000)
    .description('Most pixels of all the frames of an accepted animation (frames × width × height): what work on every frame costs (the variants, `width`, a metadata strip; an animated transformation result, its frames as scaled: past it, 400 with code 180); and of any GIF, still too (its decoder holds a whole frame at once); past it, 413 with code 315, read from the header before decoding.'),
  allowedTypes: Joi.array()
    .items(Joi.string<ImageType>().valid(...IMAGE_TYPES))
    .min(1)
    .default(() => [...IMAGE_TYPES])
    .description('Image types accepted.'),
  thumbSize: positiveInt().default(160).description('Edge of the square `.th` variant.'),
  mediumWidth: positiveInt().default(500).description('Width of the `.md` variant (never scaled up).'),
  jpegQuality: Joi.number().integer().min(1).max(100).empty('').default(85)
    .description('JPEG (and WebP) quality of re-encoded originals and of the variants.'),
  timeZone: Joi.string().custom(timeZone, 'an IANA time zone').empty('').default('UTC')
    .description('IANA time zone of the `date` field.'),
  fetchTimeoutMs: positiveInt().default(15_000).description('URL sources: total time limit in milliseconds.'),
  fetchMaxRedirects: Joi.number().integer().min(0).empty('').default(5)
    .description('URL sources and the Media Library\'s imports from URLs: redirects followed at most.'),
  urlAllowlist: Joi.array()
    .items(Joi.string().allow(''))
    .custom(grammar(parseAllowlist), 'the URL allow-list grammar')
    .default(() => [])
    .description('URL sources and the Media Library\'s imports from URLs: hosts, addresses or CIDR ranges allowed although not public.'),
  imgbbPath: Joi.string<string | null>()
    .pattern(/^\/[A-Za-z0-9._~\/-]*[^/]$/, { name: 'absolute path' })
    .allow(null)
    .empty('')
    .default('/1/upload')
    .description('The imgbb dialect\'s upload path, at the server root (docs/api.md, "The imgbb dialect"): imgbb clients need only a new host. null (its variable: `off`) turns it off.'),
  corsOrigins: Joi.array()
    .items(Joi.string())
    .default(() => ['*'])
    .description('`Access-Control-Allow-Origin` values; `[\'*\']` allows any origin.'),
  minExpiration: positiveInt().default(60).description('Shortest expiration an upload may ask, in seconds.'),
  maxExpiration: positiveInt().min(Joi.ref('minExpiration')).default(15_552_000)
    .description('Longest expiration an upload may ask, in seconds (180 days).'),
  expirySweepSeconds: positiveInt().default(60)
    .description('How often each instance sweeps expired images away, in seconds.'),
  sweepAfterMs: Joi.number()
    .integer()
    .min(0)
    .custom((ms: number) => {
      if (ms < MIN_SWEEP_AFTER_MS && process.env.NODE_ENV !== 'test') throw new Error(`must be at least ${MIN_SWEEP_AFTER_MS} (ms)`);
      return ms;
    }, 'a safe age')
    .empty('')
    .default(10 * 60 * 1000)
    .description('The debris sweep removes crash debris older than this (uploads in flight elsewhere are younger). Never below a minute, which outlasts any upload\'s write-and-record step; test suites (NODE_ENV=test) may go lower, to see the sweep at work without waiting.'),
  debrisSweepSeconds: positiveInt().default(300)
    .description('How often each instance runs the debris sweep (crash debris, Idempotency-Key rows past 24 h), in seconds.'),
  maxRequestsInFlight: positiveInt().default(16)
    .description('Upload-route requests in flight at once per process; past it, 503 with Retry-After before the body is read.'),
  maxBodyBytesInFlight: positiveInt().default(200_000_000)
    .description('Bytes of request bodies (as declared) in flight at once per process; past it, 503 likewise.'),
  maxRequestsPerAddress: positiveIntOrNull()
    .description('Upload-route requests in flight at once from one client address (as `trustedProxies` tell it); past it, 429 with Retry-After before the body is read. null: a quarter of `maxRequestsInFlight`.'),
  bodyTimeoutMs: positiveInt().default(120_000)
    .description('A request body not wholly arrived this long (ms) after the request came is cut with a 408, however steadily it trickles.'),
  bodyIdleTimeoutMs: positiveInt().default(10_000)
    .description('A request body with no byte for this long (ms) is cut with a 408.'),
  sendIdleTimeoutMs: positiveInt().default(30_000)
    .description('An image answer (a direct file, a transformation) whose client takes no byte for this long (ms) is cut off, so a client that stops reading holds what it was being sent no longer (a render\'s result keeps its render ticket until then).'),
  bodyMinBytesPerSecond: Joi.number().integer().min(0).empty('').default(1024)
    .description('A request body slower than this (bytes/s, averaged over each bodyIdleTimeoutMs) is cut with a 408; 0: silence only.'),
  shutdownTimeoutMs: Joi.number().integer().min(0).empty('').default(25_000)
    .description('On shutdown (SIGTERM), how long requests in flight may take to finish before the process exits, ms.'),
  tmpDir: Joi.string<string | null>().pattern(/^\//, { name: 'absolute path' }).allow(null).empty('').default(null)
    .description('Parent of per-request temp folders; null: <os tmpdir>/strapi-image-api.'),
  heicDecoder: Joi.alternatives(Joi.string().valid('auto', 'wasm'), Joi.string().pattern(/^\//, { name: 'absolute path' }))
    .empty('')
    .default('auto')
    .description('What decodes a HEIC\'s pixels: `auto`, Debian\'s `heif-convert` (libheif-examples, on the PATH) run as a child process, about twice as fast, when it is there, works and `prlimit` (util-linux) can bound it, and the file states its colours as nclx code points, else libheif\'s WebAssembly build in a worker thread; `wasm`: always the WebAssembly build; an absolute path: that heif-convert (the WebAssembly build if it is missing or does not work). Checked once per process.'),
  heicTimeoutMs: positiveInt().max(600_000).default(60_000)
    .description('Longest a HEIC\'s decode and variants may take (ms, at most 10 minutes); past it, 400 with code 311 and the decoder (the heif-convert child, or the worker thread) is killed.'),
  folderName: Joi.string().pattern(/\S/, { name: 'not blank' }).empty('').default('API uploads')
    .description('Name of the Media Library folder API uploads go to.'),
  keyCacheMs: Joi.number().integer().min(0).max(5000).empty('').default(2000)
    .description('How long a key lookup is reused (ms); other instances see a key change within this time.'),
  imageConcurrency: positiveIntOrNull()
    .description('Images processed at once per process (uploads and transformation renders); null: one per CPU core.'),
  renderConcurrency: positiveIntOrNull()
    .description('Of those, how many transformation renders may take at once; null: one fewer than `imageConcurrency` (at least one), so an upload always finds a slot whatever strangers ask to render. While no upload runs or waits, a render of a still image may also borrow the slot left for uploads (an upload then waits for one render at most).'),
  sharpThreads: positiveIntOrNull()
    .description('libvips threads per image operation (process-wide); null: the cores divided among `imageConcurrency` images, at least one.'),
  heapGrowingPercent: Joi.number<number | null>().integer().min(1).max(300).allow(null).empty('').default(null)
    .description('V8 heap growth before a full collection, in % of the live heap (process-wide); null (its variable: `0`): V8\'s own heuristic.'),
  blockUnusedDecoders: Joi.boolean().strict().default(true)
    .description('Block every libvips loader but JPEG, PNG, GIF and WebP, process-wide.'),
  keepExif: Joi.boolean().strict().default(false)
    .description('Keep EXIF/XMP/IPTC (GPS included) in stored originals and report it in original_exifdata.'),
  keyHashSecret: Joi.string<string | null>().min(1).allow(null).empty('').default(null)
    .description('HMAC secret of API key hashes; null: the admin API token salt.'),
  metrics: Joi.string<string | null>().min(16).allow(null).empty('').default(null)
    .description('Bearer token of `GET /_metrics` (Prometheus text format), at least 16 characters; null: no metrics endpoint.'),
  bootstrapKey: Joi.string<string | null>().min(1).allow(null).empty('').default(null)
    .description('A key made sure to exist at boot (declarative provisioning).'),
  rateLimit: Joi.string().allow('').custom(grammar(parseRateLimit), 'the rate-limit grammar').default('50/minute,500/hour,1000/day')
    .description('Uploads per key, e.g. "50/minute,500/hour,1000/day", or "off" (config/rate-limit.ts). A key may override it.'),
  failedAuthLimit: Joi.string().allow('').custom(grammar(parseRateLimit), 'the rate-limit grammar').default('10/minute')
    .description('Failed authentications per client address, e.g. "10/minute", or "off".'),
  trustedProxies: Joi.array()
    .items(Joi.string().trim().allow(''))
    // An empty entry (an environment variable set to nothing) is none.
    .custom((list: string[]) => grammar(compileTrustedProxies)(list.filter(Boolean)), 'addresses, CIDR ranges or loopback/linklocal/uniquelocal')
    .default(() => [])
    .description('Proxies whose X-Forwarded-For is believed for the client\'s address (addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`); empty: the connection\'s peer is the client.'),
  cacheMaxAgeSeconds: positiveInt().default(2_592_000)
    .description('`max-age` of direct image URLs and transformation results, which never change under their URL (docs/api.md, "Direct URLs"), in seconds (30 days).'),
  hotFileCacheBytes: Joi.number().integer().min(0).empty('').default(64_000_000)
    .description('Bytes of served image files kept in memory per process, the most recently used (files up to 1 MB each); 0: none.'),
  transformPath: Joi.string<string | null>()
    .pattern(/^\/[A-Za-z0-9._~\/-]*[^/]$/, { name: 'absolute path' })
    // `/uploads` is the Media Library's, where a path has one spelling only (delivery/uploads-path.ts).
    .pattern(/^(?!\/uploads(?:\/|$))/i, { name: 'path outside /uploads' })
    .allow(null)
    .empty('')
    .default('/img')
    .description('Path of the transformations in imgproxy\'s URL format (docs/api.md, "Transformations"), at the server root, outside `/uploads`; null (its variable: `off`) turns them off.'),
  transformKey: Joi.string<string | null>().hex().min(2).allow(null).empty('').default(null)
    .description('imgproxy signature key, hex. With `transformSalt`, transformation URLs must be signed (presets alone excepted); neither: any URL is accepted, and the boot log warns.'),
  transformSalt: Joi.string<string | null>().hex().min(2).allow(null).empty('').default(null)
    .description('imgproxy signature salt, hex (see `transformKey`).'),
  transformPresets: Joi.object<Record<string, string>>()
    .pattern(/^[A-Za-z0-9_-]+$/, Joi.string().min(3))
    .default(() => ({ ...DEFAULT_PRESETS }))
    .description('Named option sets for `preset`/`pr`, in imgproxy\'s option syntax (`/` between options); by default Strapi\'s breakpoints.'),
  maxTransformPixels: positiveInt().default(16_000_000)
    .description('Largest transformation result in pixels; past it, 400 with code 180.'),
  transformCacheBytes: Joi.number<number | null>().integer().min(1).empty('').allow(null).default(1_000_000_000)
    .description('Bytes of kept transformation results (1 GB); past it, the least recently used go, checked every minute. null (its variable: `off`): no budget.'),
  maxRendersInFlight: positiveInt().default(16)
    .description('Transformation renders in flight at once per process (waiting for a slot or rendering), apart from the uploads\' `maxRequestsInFlight`; past it, 503 with Retry-After. Kept results and renders under way are answered past it.'),
  maxRendersPerAddress: positiveIntOrNull()
    .description('Transformation renders in flight at once from one client address (as `trustedProxies` tell it); past it, 429 with Retry-After. null: a quarter of `maxRendersInFlight` (at least one).'),
  purge: Joi.object({
    varnish: Joi.array()
      .items(Joi.string().uri({ scheme: ['http', 'https'] }).allow(''))
      .custom((list: string[]) => list.filter(Boolean))
      .default(() => [])
      .description('Varnish servers with the xkey module, by base URL (`http://10.0.0.5:6081`): each is sent `PURGE /` with an `xkey-purge` header naming the tags, and `PURGE <path>` for a URL.'),
    cloudflareZone: Joi.string<string | null>().pattern(/^[A-Za-z0-9]+$/).allow(null).empty('').default(null)
      .description('Cloudflare zone ID: purged by cache tag (and by URL for files served from the bucket), with `cloudflareToken`.'),
    cloudflareToken: Joi.string<string | null>().min(1).allow(null).empty('').default(null)
      .description('Cloudflare API token with the Cache Purge permission on that zone.'),
    cloudflareApi: Joi.string().uri({ scheme: ['http', 'https'] }).empty('').default('https://api.cloudflare.com/client/v4')
      .description("Cloudflare's API base URL."),
    fastlyService: Joi.string<string | null>().pattern(/^[A-Za-z0-9]+$/).allow(null).empty('').default(null)
      .description('Fastly service ID: purged by surrogate key (and by URL for files served from the bucket), with `fastlyToken`.'),
    fastlyToken: Joi.string<string | null>().min(1).allow(null).empty('').default(null)
      .description('Fastly API token with purge rights on that service.'),
    fastlyApi: Joi.string().uri({ scheme: ['http', 'https'] }).empty('').default('https://api.fastly.com')
      .description("Fastly's API base URL."),
    timeoutMs: positiveInt().default(5000)
      .description('Time limit of one purge request, in milliseconds.'),
  })
    .default()
    .custom((purge: { cloudflareZone: string | null; cloudflareToken: string | null; fastlyService: string | null; fastlyToken: string | null }) => {
      if ((purge.cloudflareZone === null) !== (purge.cloudflareToken === null)) throw new Error('"purge.cloudflareZone" and "purge.cloudflareToken" are set together, or neither');
      if ((purge.fastlyService === null) !== (purge.fastlyToken === null)) throw new Error('"purge.fastlyService" and "purge.fastlyToken" are set together, or neither');
      return purge;
    }, 'credentials set in pairs')
    .description('Caches and CDNs told to forget a deleted or expired image (docs/deployment.md, "Caching images"): each purge is recorded with the deletion and retried until it succeeds or `cacheMaxAgeSeconds` has passed. None by default.'),
  moderation: Joi.object({
    mode: Joi.string().valid(...MODERATION_MODES).empty('').default('off')
      .description('What an upload scored past the threshold does, for keys that set no `moderation` of their own: `off` (not classified), `flag` (marked NSFW, its viewer page asks before showing it), `hold` (stored, every URL 404 until an admin approves it) or `refuse` (422, code 106, nothing stored). docs/moderation.md.'),
    threshold: Joi.number().min(0).max(1).empty('').default(0.8)
      .description('The NSFW score (0 to 1: the classifier\'s probability that the image is porn, hentai or sexy) at or past which an upload is flagged, held or refused, for keys that set no threshold of their own.'),
    blockDistance: Joi.number().integer().min(0).max(47).empty('').default(31)
      .description('Largest number of differing bits (of 256) between an upload\'s PDQ fingerprint and a blocked one for the upload to match it (403, code 107); 0: the same fingerprint only.'),
    warm: Joi.boolean().empty('').default(true)
      .description('Load the classifier\'s model in the background after boot (about 3.5 s of one core and 190 MB of memory) when some key or the default moderates; false: at the first upload that needs it, which then waits for it.'),
    reportsPerAddress: Joi.string().allow('').custom(grammar(parseRateLimit), 'the rate-limit grammar').default('5/hour')
      .description('Reports one client address may send, e.g. "5/hour", or "off" (no bound).'),
    reportsPerImage: positiveInt().default(50)
      .description('Reports kept for one image; past it, more are answered as accepted and not stored (the image is in the review queue already).'),
  })
    .default()
    .description('Moderation (docs/moderation.md): the classifier\'s defaults, the blocklist\'s perceptual distance, the bounds of reports.'),
  redisUrl: Joi.string<string | null>().uri({ scheme: ['redis', 'rediss'] }).allow(null).empty('').default(null)
    .description('Redis for rate-limit counters shared by every instance; null: in-process memory.'),
  redisTimeoutMs: positiveInt().default(250)
    .description('A Redis command slower than this (ms) counts as Redis being down: memory counters answer instead.'),
  redisPrefix: Joi.string().min(1).empty('').default('image-api')
    .description('Prefix of the plugin\'s Redis keys.'),
};

/** The value type a joi schema validates to. */
type ValueOf<S> = S extends { validate(value: unknown): Joi.ValidationResult<infer T> } ? T : never;

/** The plugin's configuration, every option set (defaults filled in). */
export type ImageApiConfig = { [Option in keyof typeof options]: ValueOf<(typeof options)[Option]> };

export const configSchema = Joi.object<ImageApiConfig>(options)
  .unknown(false)
  .custom((config: ImageApiConfig) => {
    if ((config.transformKey === null) !== (config.transformSalt === null)) throw new Error('"transformKey" and "transformSalt" are set together, or neither');
    return config;
  }, 'a signature key and salt together')
  .prefs({ abortEarly: true, convert: true, errors: { wrap: { label: '"' } } });

/** Checks an app's configuration and fills in the defaults; throws an Error naming the option. */
export function validateConfig(config: unknown): ImageApiConfig {
  const { value, error } = configSchema.validate(config ?? {});
  if (error) throw new Error(`image-api config: ${error.message}`);
  return value;
}
