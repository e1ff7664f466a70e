export default ({ env }) => ({
  'image-api': {
    enabled: true,
    resolve: './plugins/image-api',
    // Every option and its default: plugins/image-api/server/src/config/index.ts
    config: {
      publicUrl: env('PUBLIC_URL', `http://localhost:${env.int('PORT', 1337)}`),
      urlAllowlist: env.array('IMAGE_API_URL_ALLOWLIST', []),
      timeZone: env('IMAGE_API_TIME_ZONE', 'UTC'),
      keyHashSecret: env('IMAGE_API_KEY_SECRET') || null,
      bootstrapKey: env('IMAGE_API_BOOTSTRAP_KEY') || null,
      rateLimit: env('IMAGE_API_RATE_LIMIT', '50/minute,500/hour,1000/day'),
      failedAuthLimit: env('IMAGE_API_FAILED_AUTH_LIMIT', '10/minute'),
      redisUrl: env('REDIS_URL') || null,
      redisPrefix: env('IMAGE_API_REDIS_PREFIX', 'image-api'),
      tmpDir: env('IMAGE_API_TMP_DIR') || null,
      sweepAfterMs: env.int('IMAGE_API_SWEEP_AFTER_MS', 10 * 60 * 1000),
      imageConcurrency: env.int('IMAGE_API_IMAGE_CONCURRENCY', null),
      sharpThreads: env.int('IMAGE_API_SHARP_THREADS', null),
      // This app is an upload server: trade some heap for far fewer full collections (README, performance).
      heapGrowingPercent: env.int('IMAGE_API_HEAP_GROWING_PERCENT', 50) || null,
    },
  },
});
