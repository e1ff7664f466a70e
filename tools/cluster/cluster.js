#!/usr/bin/env node
/**
 * A production-shaped deployment on this machine's loopback (docs/deployment.md):
 *
 *   npm run cluster [-- --instances N]   starts Varnish (balancer and cache, purged by the instances)
 *                                        -> N instances -> PostgreSQL, Redis, Ceph S3 (with Varnish as
 *                                        its CDN), and Prometheus scraping the instances; prints the
 *                                        balancer's URL and a key, runs until Ctrl-C
 *   npm run cluster -- --stop            stops a cluster started from another shell
 *
 * Everything is started from nothing and lives under .cluster/ (removed on stop): its own
 * PostgreSQL, Redis and single-node Ceph (radosgw for S3) on spare ports, Debian packages installed
 * when missing. The IMAGE_API_* variables of the calling shell reach every instance. The state
 * (ports, pids, the key) is in .cluster/state.json for scripts and tests.
 */
'use strict';

const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { parseArgs } = require('util');
const { ensureBuilt } = require('../support/app/ensure-built');
const { createBucket } = require('./bucket');
const { startCeph } = require('./ceph');
const { APP_DIR, sharedEnvironment, startInstance, waitUntilHealthy } = require('./instances');
const { startVarnish } = require('./varnish');
const { startPrometheus } = require('./prometheus');
const { ensurePackages } = require('../support/servers/debian-packages');
const { freePort } = require('../support/servers/ports');
const { postgresBin, startPostgres } = require('../support/servers/postgres');
const { isAlive, sleep, stopProcess } = require('../support/servers/processes');
const { startRedis } = require('../support/servers/redis');

const BUCKET = 'images';

const log = (message) => process.stderr.write(`cluster: ${message}\n`);

function readOptions() {
  const { values } = parseArgs({
    options: {
      instances: { type: 'string', default: '2' },
      dir: { type: 'string', default: path.join(APP_DIR, '.cluster') },
      stop: { type: 'boolean', default: false },
    },
  });
  const instances = Number(values.instances);
  if (!Number.isInteger(instances) || instances < 1 || instances > 16) throw new Error('--instances: a number from 1 to 16');
  return { instances, dir: path.resolve(values.dir), stop: values.stop };
}

const stateFile = (dir) => path.join(dir, 'state.json');
const readState = (dir) => (fs.existsSync(stateFile(dir)) ? JSON.parse(fs.readFileSync(stateFile(dir), 'utf8')) : null);
const writeState = (dir, state) => fs.writeFileSync(stateFile(dir), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });

/** Stops every part in the order that loses nothing: the balancer, the instances, then their servers. */
async function stopParts(state) {
  const pids = state.pids ?? {};
  await stopProcess(pids.varnish, 'SIGTERM', 10000);
  await stopProcess(pids.varnishncsa, 'SIGTERM', 10000);
  await stopProcess(pids.prometheus, 'SIGTERM', 10000);
  await Promise.all((state.instances ?? []).map((instance) => stopProcess(instance.pid, 'SIGTERM', 35000)));
  await stopProcess(pids.redis, 'SIGTERM', 10000);
  await stopProcess(pids.postgres, 'SIGINT', 20000); // fast shutdown
  for (const name of ['radosgw', 'ceph-osd', 'ceph-mon']) await stopProcess(pids[name], 'SIGTERM', 20000);
}

/** --stop: asks the running script to stop its cluster; stops the parts itself if the script is gone. */
async function stopFromOutside(dir) {
  const state = readState(dir);
  if (!state) {
    log(`no cluster under ${dir}`);
    return;
  }
  if (isAlive(state.pid) && state.pid !== process.pid) {
    process.kill(state.pid, 'SIGTERM');
    while (isAlive(state.pid)) await sleep(200);
  } else {
    await stopParts(state);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  log('stopped');
}

/** The app's builds a production start needs (plugin, compiled config, admin panel), once. */
async function build() {
  await ensureBuilt();
  execFileSync(process.execPath, [path.join(APP_DIR, 'scripts', 'ensure-admin-build.js')], { cwd: APP_DIR, stdio: ['ignore', 2, 2] });
}

async function start({ instances: count, dir }) {
  const previous = readState(dir);
  if (previous) {
    if (isAlive(previous.pid)) throw new Error(`a cluster is already running (pid ${previous.pid}); npm run cluster -- --stop`);
    log('cleaning up after a cluster that did not stop');
    await stopParts(previous);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const startedAt = Date.now();
  const state = { pid: process.pid, dir, pids: {}, instances: [] };
  writeState(dir, state);

  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    log('stopping');
    await stopParts(state);
    fs.rmSync(dir, { recursive: true, force: true });
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  try {
    await build();
    log('starting PostgreSQL, Redis and Ceph (S3)');
    // Each server's pid is on disk as soon as it starts, so a --stop after a crash of this script
    // finds everything.
    const started = (name, pid) => {
      state.pids[name] = pid;
      writeState(dir, state);
    };
    if (!postgresBin()) ensurePackages(['psql'], ['postgresql'], log);
    ensurePackages(['redis-server'], ['redis-server'], log);
    const [database, redis, ceph] = await Promise.all([
      startPostgres({ dir: path.join(dir, 'postgres'), maxConnections: 20 + 12 * count, durable: true, onSpawn: (pid) => started('postgres', pid) }),
      startRedis({ dir: path.join(dir, 'redis'), onSpawn: (pid) => started('redis', pid) }),
      startCeph(path.join(dir, 'ceph'), log, started),
    ]);
    const s3 = { endpoint: ceph.endpoint, bucket: BUCKET, accessKeyId: ceph.accessKeyId, secretAccessKey: ceph.secretAccessKey };
    await createBucket(s3, BUCKET);

    // Varnish's ports are chosen first: every instance names the front as PUBLIC_URL and as the
    // cache to purge, and the bucket listener as the CDN of the bucket (S3_BASE_URL).
    const balancerPort = await freePort();
    const bucketPort = await freePort();
    const publicUrl = `http://127.0.0.1:${balancerPort}`;
    s3.baseUrl = `http://127.0.0.1:${bucketPort}/${BUCKET}`;
    const key = `img_${crypto.randomBytes(16).toString('hex')}`;
    const extra = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('IMAGE_API_')));
    // The caller's token, else one of this cluster's: Prometheus scrapes with it.
    const metricsToken = extra.IMAGE_API_METRICS_TOKEN || crypto.randomBytes(24).toString('hex');
    const shared = sharedEnvironment({ publicUrl, database, redis, s3, bootstrapKey: key, instances: count, metricsToken, purgeVarnish: publicUrl });
    log(`starting ${count} instance(s) at once (their first boot takes turns on the database lock)`);
    for (let index = 1; index <= count; index++) {
      state.instances.push(await startInstance(dir, index, shared, extra));
      writeState(dir, state);
    }
    await Promise.all(state.instances.map((instance) => waitUntilHealthy(instance)));
    const varnish = await startVarnish(path.join(dir, 'varnish'), log, state.instances.map((i) => i.port), {
      port: balancerPort,
      bucketPort,
      bucket: { port: Number(new URL(ceph.endpoint).port) },
    });
    state.pids.varnish = varnish.pid;
    state.pids.varnishncsa = varnish.logPid;
    const prometheus = await startPrometheus(path.join(dir, 'prometheus'), log, state.instances.map((i) => i.port), metricsToken);
    state.pids.prometheus = prometheus.pid;
    Object.assign(state, {
      url: varnish.url,
      accessLog: varnish.accessLog,
      key,
      database: { port: database.port, ...database.env },
      redis: { url: redis.url },
      s3,
      prometheus: { url: prometheus.url },
      environment: shared,
    });
    writeState(dir, state);

    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    process.stdout.write(
      [
        `Ready in ${seconds} s: ${count} instance(s) behind Varnish.`,
        `  API:        ${varnish.url}/api/1/upload`,
        `  Key:        ${key}`,
        `  Admin:      ${varnish.url}/admin`,
        `  Instances:  ${state.instances.map((i) => `${i.url} (pid ${i.pid})`).join(', ')}`,
        `  S3:         ${s3.endpoint}/${BUCKET}, through Varnish as its CDN: ${s3.baseUrl}`,
        `  PostgreSQL: 127.0.0.1:${database.port}/image_api   Redis: ${redis.url}`,
        `  Prometheus: ${prometheus.url} (scrapes every instance's /_metrics; try the query sum(image_api_uploads_total))`,
        `  Logs and state: ${dir}`,
        `  Access log: ${varnish.accessLog}`,
        `Try: curl -F source=@docs/screenshots/key-panel.png -F key=${key} ${varnish.url}/api/1/upload`,
        'Ctrl-C (or npm run cluster -- --stop) stops everything.',
        'READY',
        '',
      ].join('\n')
    );
    for (const instance of state.instances) {
      const watch = setInterval(() => {
        if (!isAlive(instance.pid)) {
          clearInterval(watch);
          if (!stopping) log(`instance ${instance.index} (pid ${instance.pid}) exited; see ${instance.log}`);
        }
      }, 1000);
    }
  } catch (error) {
    log(`could not start: ${error.message}`);
    await stop(1);
  }
}

const options = readOptions();
(options.stop ? stopFromOutside(options.dir) : start(options)).catch((error) => {
  log(error.message);
  process.exit(1);
});
