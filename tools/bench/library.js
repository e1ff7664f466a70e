#!/usr/bin/env node
/**
 * Costs against the size of the library: does anything grow with it?
 *
 *   npm run bench:library [-- --library 1000000] [--blocklist 100000] [--db sqlite,postgres] [--seconds 5] [--rounds 3] [--expired 1000] [--json]
 *
 * For each database, in one run: the production app (server.js) twice, on a scratch database with an
 * empty library and on one with `--library` images' rows added (library-fill.js; then left to settle:
 * a checkpoint, autovacuum done, the OS's dirty pages written), measured in alternating rounds:
 *   - viewer p50: GET /image/<id> of images uploaded for the purpose, one client at a time;
 *   - uploads/s: POST /api/1/upload of an 800×447 PNG, two clients at once;
 *   - usage page p50: the admin's Image API page's two reports (overview and keys), in the server;
 *   - sweep: the time the expiry sweep takes to remove `--expired` expired images (uploaded, then
 *     made expired), files and rows.
 * The large library's first boot after the fill (the plugin's indexes on its rows) is timed. The
 * large library's moderation blocklist then gets `--blocklist` entries (random: 1 % SHA-256, 1 % MD5,
 * the rest PDQ, imported as admins import lists), so every upload there computes the fingerprints
 * and looks them up; the empty library has none (no fingerprint computed at all).
 * Targets at 1,000,000 images: viewer p50 ≤ 1.2× empty, uploads ≥ 0.9× empty, usage page ≤ 2× empty
 * and under 100 ms, 1,000 expired images swept in under 5 s. PostgreSQL: the server at 127.0.0.1:5432 (a scratch database, dropped after).
 * Only loopback traffic.
 */
'use strict';

const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const { ensureBuilt } = require('../support/app/ensure-built');
const { loadFixtures } = require('./fixtures');
const { measure, post, summarize } = require('./http-load');
const { multipart } = require('../support/http/multipart');
const { createScratchDb } = require('../support/app/scratch-db');
const { startServer } = require('./servers');

const { values: opts } = parseArgs({
  options: {
    library: { type: 'string', default: '1000000' },
    db: { type: 'string', default: 'sqlite,postgres' },
    seconds: { type: 'string', default: '5' },
    expired: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    blocklist: { type: 'string', default: '100000' },
    json: { type: 'boolean', default: false },
  },
});
const BLOCKLIST = Number(opts.blocklist);
const LIBRARY = Number(opts.library);
const SECONDS = Number(opts.seconds);
const EXPIRED = Number(opts.expired);
const ROUNDS = Number(opts.rounds);
const log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

function get(agent, port, urlPath) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** Uploads `count` copies of a body, `concurrency` at a time; returns the answers' images. */
async function uploadMany(agent, server, body, count, concurrency = 4) {
  const images = [];
  let next = 0;
  const client = async () => {
    while (next < count) {
      next++;
      const res = await post(agent, server.port, '/api/1/upload', { 'content-type': body.type }, body.body);
      if (res.status !== 200) throw new Error(`upload: HTTP ${res.status} ${res.body.toString().slice(0, 200)}`);
      images.push(JSON.parse(res.body.toString()).image);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return images;
}

/** What each measurement sends: a small image to view, the PNG fixture, a small image that expires. */
async function bodiesFor(server, fixtures) {
  const png = fixtures['png-800'];
  const tiny = await require('sharp')({ create: { width: 16, height: 16, channels: 3, background: '#369' } }).png().toBuffer();
  return {
    png: multipart({ key: server.key }, { field: 'source', name: png.file, type: png.type, bytes: png.bytes }),
    small: multipart({ key: server.key }, { field: 'source', name: 'view.png', type: 'image/png', bytes: tiny }),
    expiring: multipart({ key: server.key, expiration: '3600' }, { field: 'source', name: 'expiring.png', type: 'image/png', bytes: tiny }),
  };
}

/** A library under test: its database, its server, what to send it, and its samples. */
async function openLibrary(client, workDir, fixtures, count) {
  const db = await createScratchDb(client);
  // The sweep runs only when the bench asks for it.
  // The boot creates the plugin's indexes on a million rows: longer than the default statement timeout.
  const env = { ...db.env, IMAGE_API_EXPIRY_SWEEP_SECONDS: '86400', DATABASE_QUERY_TIMEOUT_MS: '600000' };
  let server = await startServer(workDir, { env, ipc: true });
  let fillSeconds = 0;
  let bootSeconds = 0;
  if (count > 0) {
    log(`bench:library ${client}: adding ${count} images' rows…`);
    fillSeconds = (await server.request({ type: 'fill', count })).ms / 1000;
    await server.request({ type: 'settle' });
    // The operating system's dirty pages too: written out now, not during a measurement.
    execFileSync('sync');
    await server.stop();
    const booting = Date.now();
    server = await startServer(workDir, { env, ipc: true });
    bootSeconds = (Date.now() - booting) / 1000;
  }
  let blocklist = null;
  if (count > 0 && BLOCKLIST > 0) {
    log(`bench:library ${client}: listing ${BLOCKLIST} blocklist entries…`);
    const exact = Math.floor(BLOCKLIST / 100);
    const random = (n, bytes) => Array.from({ length: n }, () => crypto.randomBytes(bytes).toString('hex'));
    blocklist = await server.request({ type: 'blocklist-fill', pdq: random(BLOCKLIST - 2 * exact, 32), sha256: random(exact, 32), md5: random(exact, 16) });
    await server.request({ type: 'settle' });
  }
  const bodies = await bodiesFor(server, fixtures);
  return { count, db, server, bodies, fillSeconds, bootSeconds, blocklist, viewer: [], uploads: [], usage: [], paths: [] };
}

async function closeLibrary(library) {
  await library.server?.stop();
  await library.db.drop();
}

/** Viewer requests (one client) and uploads (two clients) on one library: one sample each. */
async function measureRound(agent, library) {
  const { server, bodies } = library;
  if (library.paths.length === 0) {
    library.paths = (await uploadMany(agent, server, bodies.small, 20)).map((image) => new URL(image.url_viewer).pathname);
  }
  let i = 0;
  const view = () => get(agent, server.port, library.paths[i++ % library.paths.length]);
  for (let w = 0; w < 20; w++) await view();
  library.viewer.push(await measure(view, 1, SECONDS));
  const upload = async () => {
    const res = await post(agent, server.port, '/api/1/upload', { 'content-type': bodies.png.type }, bodies.png.body);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  };
  for (let w = 0; w < 3; w++) await upload();
  library.uploads.push(await measure(upload, 2, SECONDS));
  const usage = await server.request({ type: 'usage', times: 21 });
  // The page must be reporting on the whole library: the fill wrote its tallies (library-fill.js).
  if (usage.images < library.count) throw new Error(`the usage page counts ${usage.images} images, not the library's ${library.count}`);
  library.usage.push(usage.p50);
}

/** The time the expiry sweep takes to remove EXPIRED images (uploaded, then made expired). */
async function measureSweep(agent, { server, bodies }) {
  const expiring = await uploadMany(agent, server, bodies.expiring, EXPIRED);
  await server.request({ type: 'expire', ids: expiring.map((image) => image.id_encoded) });
  const sweep = await server.request({ type: 'sweep' });
  if (sweep.removed !== EXPIRED) throw new Error(`the sweep removed ${sweep.removed} images, not ${EXPIRED}`);
  return sweep.ms;
}

/**
 * An empty library and a large one, each on a database and a server of its own, measured in
 * alternating rounds (this machine is noisy: the ratio of two measurements minutes apart says less).
 */
async function benchDatabase(client, fixtures) {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-library-'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const libraries = [];
  try {
    libraries.push(await openLibrary(client, path.join(workDir, 'large'), fixtures, LIBRARY));
    libraries.push(await openLibrary(client, path.join(workDir, 'empty'), fixtures, 0));
    const [large, empty] = libraries;
    for (let round = 1; round <= ROUNDS; round++) {
      log(`bench:library ${client}: round ${round} of ${ROUNDS}`);
      for (const library of [empty, large]) await measureRound(agent, library);
    }
    const figures = async (library) => ({
      viewerP50Ms: summarize(library.viewer).p50,
      uploadsPerSecond: summarize(library.uploads).rps,
      uploadErrors: summarize(library.uploads).errors,
      usageP50Ms: [...library.usage].sort((a, b) => a - b)[Math.floor(library.usage.length / 2)],
      sweepMs: await measureSweep(agent, library),
    });
    return {
      client,
      library: LIBRARY,
      fillSeconds: large.fillSeconds,
      bootSeconds: large.bootSeconds,
      blocklist: large.blocklist && { counts: large.blocklist.counts, mirror: large.blocklist.mirror, seconds: large.blocklist.ms / 1000 },
      empty: await figures(empty),
      large: await figures(large),
    };
  } finally {
    agent.destroy();
    for (const library of libraries) await closeLibrary(library);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function printReport(report) {
  const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  const listed = (r) =>
    r.blocklist ? `${r.blocklist.counts.pdq} PDQ, ${r.blocklist.counts.sha256} SHA-256, ${r.blocklist.counts.md5} MD5 (listed in ${f(r.blocklist.seconds, 0)} s)` : 'none';
  const out = [
    `${report.machine}`,
    `${ROUNDS} rounds × ${SECONDS} s per measurement, alternating empty / large; ${EXPIRED} expired images per sweep`,
    ...report.results.map((r) => `${r.client}: the large library's blocklist: ${listed(r)}; the empty one's: none`),
    '',
  ];
  out.push('| database | library | viewer p50 ms | uploads/s (c=2) | usage page p50 ms | sweep of expired, s |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of report.results) {
    for (const [label, m] of [['empty', r.empty], [r.library.toLocaleString('en'), r.large]]) {
      out.push(`| ${r.client} | ${label} | ${f(m.viewerP50Ms, 2)} | ${f(m.uploadsPerSecond)} | ${f(m.usageP50Ms, 1)} | ${f(m.sweepMs / 1000, 2)} |`);
    }
  }
  out.push('');
  out.push('| database | viewer p50, large / empty (≤ 1.2) | uploads, large / empty (≥ 0.9) | usage page, large / empty (≤ 2) | sweep at the large library (< 5 s) | rows added in | first boot after |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of report.results) {
    out.push(
      `| ${r.client} | ${f(r.large.viewerP50Ms / r.empty.viewerP50Ms, 2)} | ${f(r.large.uploadsPerSecond / r.empty.uploadsPerSecond, 2)} | ` +
        `${f(r.large.usageP50Ms / r.empty.usageP50Ms, 2)} | ${f(r.large.sweepMs / 1000, 2)} s | ${f(r.fillSeconds, 0)} s | ${f(r.bootSeconds, 0)} s |`
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main() {
  await ensureBuilt();
  const fixtures = await loadFixtures(path.join(__dirname, 'out', 'fixtures'));
  const results = [];
  for (const client of opts.db.split(',')) results.push(await benchDatabase(client, fixtures));
  const cpus = os.cpus();
  const report = { machine: `machine: ${cpus.length} cores (${cpus[0]?.model}), Node ${process.version}`, results };
  if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printReport(report);
}

main().catch((error) => {
  process.stderr.write(`bench:library: ${error.stack}\n`);
  process.exit(1);
});
