/**
 * The options' environment variables, read by the plugin itself: an app that installs the plugin
 * gets them without copying anything into its config/plugins.ts. An option the app's config sets
 * wins over its variable; a variable that is unset or empty leaves the default.
 */

/** How an option's variable reads: as text (the schema converts numbers), or a comma-separated list. */
type Reading = 'text' | 'list';

export const OPTION_VARIABLES: Record<string, { variable: string; reading?: Reading }> = {
  publicUrl: { variable: 'PUBLIC_URL' },
  urlAllowlist: { variable: 'IMAGE_API_URL_ALLOWLIST', reading: 'list' },
  imgbbPath: { variable: 'IMAGE_API_IMGBB_PATH' },
  trustedProxies: { variable: 'IMAGE_API_TRUSTED_PROXIES', reading: 'list' },
  corsOrigins: { variable: 'IMAGE_API_CORS_ORIGINS', reading: 'list' },
  timeZone: { variable: 'IMAGE_API_TIME_ZONE' },
  keyHashSecret: { variable: 'IMAGE_API_KEY_SECRET' },
  bootstrapKey: { variable: 'IMAGE_API_BOOTSTRAP_KEY' },
  metrics: { variable: 'IMAGE_API_METRICS_TOKEN' },
  rateLimit: { variable: 'IMAGE_API_RATE_LIMIT' },
  failedAuthLimit: { variable: 'IMAGE_API_FAILED_AUTH_LIMIT' },
  redisUrl: { variable: 'REDIS_URL' },
  redisPrefix: { variable: 'IMAGE_API_REDIS_PREFIX' },
  redisTimeoutMs: { variable: 'IMAGE_API_REDIS_TIMEOUT_MS' },
  tmpDir: { variable: 'IMAGE_API_TMP_DIR' },
  heicDecoder: { variable: 'IMAGE_API_HEIC_DECODER' },
  heicTimeoutMs: { variable: 'IMAGE_API_HEIC_TIMEOUT_MS' },
  sweepAfterMs: { variable: 'IMAGE_API_SWEEP_AFTER_MS' },
  debrisSweepSeconds: { variable: 'IMAGE_API_DEBRIS_SWEEP_SECONDS' },
  maxRequestsInFlight: { variable: 'IMAGE_API_MAX_REQUESTS_IN_FLIGHT' },
  maxBodyBytesInFlight: { variable: 'IMAGE_API_MAX_BODY_BYTES_IN_FLIGHT' },
  maxRequestsPerAddress: { variable: 'IMAGE_API_MAX_REQUESTS_PER_ADDRESS' },
  bodyIdleTimeoutMs: { variable: 'IMAGE_API_BODY_IDLE_TIMEOUT_MS' },
  sendIdleTimeoutMs: { variable: 'IMAGE_API_SEND_IDLE_TIMEOUT_MS' },
  bodyTimeoutMs: { variable: 'IMAGE_API_BODY_TIMEOUT_MS' },
  bodyMinBytesPerSecond: { variable: 'IMAGE_API_BODY_MIN_BYTES_PER_SECOND' },
  shutdownTimeoutMs: { variable: 'IMAGE_API_SHUTDOWN_TIMEOUT_MS' },
  minExpiration: { variable: 'IMAGE_API_MIN_EXPIRATION' },
  maxExpiration: { variable: 'IMAGE_API_MAX_EXPIRATION' },
  expirySweepSeconds: { variable: 'IMAGE_API_EXPIRY_SWEEP_SECONDS' },
  imageConcurrency: { variable: 'IMAGE_API_IMAGE_CONCURRENCY' },
  renderConcurrency: { variable: 'IMAGE_API_RENDER_CONCURRENCY' },
  sharpThreads: { variable: 'IMAGE_API_SHARP_THREADS' },
  heapGrowingPercent: { variable: 'IMAGE_API_HEAP_GROWING_PERCENT' },
  cacheMaxAgeSeconds: { variable: 'IMAGE_API_CACHE_MAX_AGE' },
  hotFileCacheBytes: { variable: 'IMAGE_API_HOT_FILE_CACHE_BYTES' },
  transformPath: { variable: 'IMAGE_API_TRANSFORM_PATH' },
  transformKey: { variable: 'IMAGE_API_TRANSFORM_KEY' },
  transformSalt: { variable: 'IMAGE_API_TRANSFORM_SALT' },
  maxTransformPixels: { variable: 'IMAGE_API_MAX_TRANSFORM_PIXELS' },
  maxAnimationFrames: { variable: 'IMAGE_API_MAX_ANIMATION_FRAMES' },
  maxAnimationPixels: { variable: 'IMAGE_API_MAX_ANIMATION_PIXELS' },
  transformCacheBytes: { variable: 'IMAGE_API_TRANSFORM_CACHE_BYTES' },
  maxRendersInFlight: { variable: 'IMAGE_API_MAX_RENDERS_IN_FLIGHT' },
  maxRendersPerAddress: { variable: 'IMAGE_API_MAX_RENDERS_PER_ADDRESS' },
  // Options of an object option by its dotted path.
  'purge.varnish': { variable: 'IMAGE_API_PURGE_VARNISH', reading: 'list' },
  'purge.cloudflareZone': { variable: 'IMAGE_API_PURGE_CLOUDFLARE_ZONE' },
  'purge.cloudflareToken': { variable: 'IMAGE_API_PURGE_CLOUDFLARE_TOKEN' },
  'purge.cloudflareApi': { variable: 'IMAGE_API_PURGE_CLOUDFLARE_API' },
  'purge.fastlyService': { variable: 'IMAGE_API_PURGE_FASTLY_SERVICE' },
  'purge.fastlyToken': { variable: 'IMAGE_API_PURGE_FASTLY_TOKEN' },
  'purge.fastlyApi': { variable: 'IMAGE_API_PURGE_FASTLY_API' },
  'purge.timeoutMs': { variable: 'IMAGE_API_PURGE_TIMEOUT_MS' },
  'moderation.mode': { variable: 'IMAGE_API_MODERATION' },
  'moderation.threshold': { variable: 'IMAGE_API_MODERATION_THRESHOLD' },
  'moderation.blockDistance': { variable: 'IMAGE_API_BLOCK_DISTANCE' },
  'moderation.warm': { variable: 'IMAGE_API_MODERATION_WARM' },
  'moderation.reportsPerAddress': { variable: 'IMAGE_API_REPORTS_PER_ADDRESS' },
};

/** Fills the options the app's config left unset from their variables (in place). */
export function applyEnvironment(config: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): void {
  for (const [path, { variable, reading }] of Object.entries(OPTION_VARIABLES)) {
    // `purge.varnish`: the key `varnish` of the object option `purge` (made when the app set none).
    const [option, inner] = path.split('.');
    if (inner !== undefined && config[option] !== undefined && (typeof config[option] !== 'object' || config[option] === null)) continue;
    const holder = inner === undefined ? config : ((config[option] ??= {}) as Record<string, unknown>);
    const name = inner ?? option;
    if (holder[name] !== undefined) continue;
    const value = env[variable];
    if (value === undefined || value.trim() === '') continue;
    if ((name === 'imgbbPath' || name === 'transformPath' || name === 'transformCacheBytes') && value.trim() === 'off') holder[name] = null;
    else if (name === 'heapGrowingPercent' && value.trim() === '0') holder[name] = null;
    else holder[name] = reading === 'list' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
  }
}
