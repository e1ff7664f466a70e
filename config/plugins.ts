// The image API plugin, configured from the environment (.env.example lists the variables). A variable
// that is unset or empty leaves the plugin's default (plugins/image-api/server/src/config/schema.ts);
// values arrive as text and the plugin reads numbers from it.
import { uploadPluginConfig } from './storage/s3';

export default ({ env }) => ({
  // Where files go: local disk by default, an S3 bucket with UPLOAD_PROVIDER=aws-s3 (config/storage/s3.ts).
  upload: uploadPluginConfig(env),
  'image-api': {
    enabled: true,
    resolve: './plugins/image-api',
    config: {
      publicUrl: env('PUBLIC_URL'),
      urlAllowlist: env.array('IMAGE_API_URL_ALLOWLIST'),
      // imgbb's upload path at the server root (default /1/upload); "off" turns the dialect off.
      imgbbPath: env('IMAGE_API_IMGBB_PATH') === 'off' ? null : env('IMAGE_API_IMGBB_PATH'),
      // Behind a load balancer: its addresses (or `loopback`, a CIDR range), so the client's address
      // comes from X-Forwarded-For; unset, the connection's peer is the client.
      trustedProxies: env.array('IMAGE_API_TRUSTED_PROXIES'),
      timeZone: env('IMAGE_API_TIME_ZONE'),
      keyHashSecret: env('IMAGE_API_KEY_SECRET'),
      bootstrapKey: env('IMAGE_API_BOOTSTRAP_KEY'),
      rateLimit: env('IMAGE_API_RATE_LIMIT'),
      failedAuthLimit: env('IMAGE_API_FAILED_AUTH_LIMIT'),
      redisUrl: env('REDIS_URL'),
      redisPrefix: env('IMAGE_API_REDIS_PREFIX'),
      redisTimeoutMs: env('IMAGE_API_REDIS_TIMEOUT_MS'),
      tmpDir: env('IMAGE_API_TMP_DIR'),
      sweepAfterMs: env('IMAGE_API_SWEEP_AFTER_MS'),
      debrisSweepSeconds: env('IMAGE_API_DEBRIS_SWEEP_SECONDS'),
      maxRequestsInFlight: env('IMAGE_API_MAX_REQUESTS_IN_FLIGHT'),
      maxBodyBytesInFlight: env('IMAGE_API_MAX_BODY_BYTES_IN_FLIGHT'),
      bodyIdleTimeoutMs: env('IMAGE_API_BODY_IDLE_TIMEOUT_MS'),
      bodyMinBytesPerSecond: env('IMAGE_API_BODY_MIN_BYTES_PER_SECOND'),
      shutdownTimeoutMs: env('IMAGE_API_SHUTDOWN_TIMEOUT_MS'),
      minExpiration: env('IMAGE_API_MIN_EXPIRATION'),
      maxExpiration: env('IMAGE_API_MAX_EXPIRATION'),
      expirySweepSeconds: env('IMAGE_API_EXPIRY_SWEEP_SECONDS'),
      imageConcurrency: env('IMAGE_API_IMAGE_CONCURRENCY'),
      sharpThreads: env('IMAGE_API_SHARP_THREADS'),
      // Not the plugin's default (V8's own heuristic): this app is an upload server, and trades some
      // heap for far fewer full collections (README, Performance). 0 gives V8 its heuristic back.
      heapGrowingPercent: env.int('IMAGE_API_HEAP_GROWING_PERCENT', 50) || null,
    },
  },
});
