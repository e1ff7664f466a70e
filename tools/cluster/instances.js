'use strict';
/**
 * The app's instances: each `strapi start` in production on a loopback port of its own, with the
 * shared database, Redis and bucket, and a temp folder of its own. They are ready when /_health
 * answers 204.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { freePort, waitForHttp } = require('../support/servers/ports');
const { startProcess } = require('../support/servers/processes');

const { APP_DIR } = require('../support/app/paths');
const { ALLOCATOR_ENV } = require('../support/app/allocator-env');
const STRAPI = path.join(APP_DIR, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js');

/** The environment every instance shares (the same for one instance or ten). */
function sharedEnvironment({ publicUrl, database, redis, s3, bootstrapKey, instances, metricsToken, purgeVarnish }) {
  return {
    NODE_ENV: 'production',
    PUBLIC_URL: publicUrl,
    ...database.env,
    REDIS_URL: redis.url,
    UPLOAD_PROVIDER: 'aws-s3',
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_REGION: 'us-east-1',
    // The bucket's CDN: the API's image URLs start with it.
    ...(s3.baseUrl ? { S3_BASE_URL: s3.baseUrl } : {}),
    // The cache in front, told of every deletion (docs/deployment.md, "Caching images").
    ...(purgeVarnish ? { IMAGE_API_PURGE_VARNISH: purgeVarnish } : {}),
    // Only the balancer (on 127.0.0.1) may say who the client is.
    IMAGE_API_TRUSTED_PROXIES: '127.0.0.1',
    // Instances on one host share its cores: sharp's work is split between them, not multiplied.
    IMAGE_API_IMAGE_CONCURRENCY: String(Math.max(1, Math.floor(os.cpus().length / instances))),
    IMAGE_API_BOOTSTRAP_KEY: bootstrapKey,
    // Prometheus scrapes /_metrics with it (tools/cluster/prometheus.js).
    IMAGE_API_METRICS_TOKEN: metricsToken,
  };
}

/**
 * Starts instance `index` with the shared environment; `extraEnv` (the caller's IMAGE_API_*
 * variables) comes last, so an operator or a test may change any option.
 */
async function startInstance(dir, index, shared, extraEnv) {
  const port = await freePort();
  const home = path.join(dir, `instance-${index}`);
  fs.mkdirSync(home, { recursive: true });
  const env = {
    ...process.env,
    ...ALLOCATOR_ENV,
    ...shared,
    HOST: '127.0.0.1',
    PORT: String(port),
    IMAGE_API_TMP_DIR: path.join(home, 'tmp'),
    ...extraEnv,
  };
  const child = startProcess(process.execPath, [STRAPI, 'start'], { log: path.join(home, 'app.log'), env, cwd: APP_DIR });
  return { index, port, pid: child.pid, log: path.join(home, 'app.log'), url: `http://127.0.0.1:${port}` };
}

async function waitUntilHealthy(instance, timeoutMs = 180000) {
  await waitForHttp(`${instance.url}/_health`, timeoutMs, `instance ${instance.index} (log: ${instance.log})`, (status) => status === 204);
}

module.exports = { APP_DIR, sharedEnvironment, startInstance, waitUntilHealthy };
