#!/usr/bin/env node
/**
 * Serving images (docs/api.md, "Serving images"), as ratios measured in one run (docs/performance.md, "Serving"):
 *
 *   npm run bench:delivery [-- --seconds 3] [--rounds 2] [--skip efforts,memory,wrk] [--perf]
 *
 *   a. a render of a 12 MP JPEG to 800 px wide JPEG through /img (each request a new result), against
 *      the bare pipeline (sharp's resize and encode of the same bytes in this process), concurrency 2;
 *   b. a repeat of a kept result against the direct URL of a file of the same size (wrk, 8 connections);
 *   c. AVIF and WebP render costs at 500, 1000 and 1920 px (AVIF at several encoder efforts, in this
 *      process), and the same through /img;
 *   d. 64 distinct 12 MP renders at once: the server's peak RSS and the statuses (200 or 503, never 500);
 *   e. a hot file (a kept result, and a 66 KB variant) served by the app against nginx serving the
 *      same file from disk, `wrk` with 8 connections (Debian's wrk and nginx, installed if missing).
 *
 * `--perf`: one more round of a. under Linux perf (perf-profile.js), the floor's process and the
 * server each sampled while they render: CPU ms per render by thread, library and function.
 *
 * The production app on a scratch SQLite database (servers.js). Only loopback traffic.
 */
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { execFileSync, spawn } = require('child_process');
const { parseArgs } = require('util');
const sharp = require('sharp');
const { generateImageUrl } = require('@imgproxy/imgproxy-node');
const { ensureBuilt } = require('../support/app/ensure-built');
const { loadFixtures } = require('./fixtures');
const { measure, post, summarize, expectOk } = require('./http-load');
const { multipart } = require('../support/http/multipart');
const { cpuBetween, minorFaults, sampleRss, threadCpuMs } = require('../support/servers/process-stats');
const { freePort, waitForPort } = require('../support/servers/ports');
const { ensurePackages } = require('../support/servers/debian-packages');
const { startServer } = require('./servers');
const { perfAvailable, recordPerf, summarizePerf, comparePerf } = require('./perf-profile');

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    skip: { type: 'string', default: '' },
    perf: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(opts.seconds);
const ROUNDS = Number(opts.rounds);
const skip = new Set(opts.skip.split(',').filter(Boolean));
const KEY = crypto.randomBytes(32).toString('hex');
const SALT = crypto.randomBytes(16).toString('hex');
const log = (line) => process.stderr.write(`${line}\n`);
const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
function get(port, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Runs `wrk` for SECONDS against `url`; requests per second. */
function wrk(url) {
  const out = execFileSync('wrk', ['-t2', '-c8', `-d${SECONDS}s`, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors:\n${out}`);
  return rps;
}

/** nginx serving `root` on a spare loopback port, as a CDN or a front proxy would serve files. */
async function startNginx(root, workDir) {
  const port = await freePort();
  const conf = path.join(workDir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `worker_processes auto; daemon off; pid ${workDir}/nginx.pid; error_log ${workDir}/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; open_file_cache max=1000; types { image/jpeg jpg; image/webp webp; }
  client_body_temp_path ${workDir}/nginx-body; proxy_temp_path ${workDir}/nginx-proxy; fastcgi_temp_path ${workDir}/nginx-fcgi;
  uwsgi_temp_path ${workDir}/nginx-uwsgi; scgi_temp_path ${workDir}/nginx-scgi;
  server { listen 127.0.0.1:${port}; root ${root}; } }
`
  );
  const child = spawn('nginx', ['-c', conf], { stdio: 'ignore' });
  await waitForPort(port);
  return { port, stop: () => child.kill('SIGTERM') };
}

(async () => {
  ensureBuilt();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-bench-delivery-'));
  // nginx's workers run as an unprivileged user: they must reach the files.
  fs.chmodSync(workDir, 0o755);
  const fixtures = await loadFixtures(path.join(__dirname, 'out', 'fixtures'));
  const source = fixtures['jpeg-12mp'];
  const server = await startServer(workDir, {
    env: { IMAGE_API_TRANSFORM_KEY: KEY, IMAGE_API_TRANSFORM_SALT: SALT, IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '64', IMAGE_API_MAX_REQUESTS_IN_FLIGHT: '16' },
  });
  const endpoint = `http://127.0.0.1:${server.port}/img`;
  const report = [];
  // The service's encoder settings, as built.
  const { AVIF_EFFORT, AVIF_QUALITY } = require('../../plugins/image-api/dist/server/src/delivery/render');
  try {
    const upload = async (bytes, name) => {
      const { body, headers } = multipart({}, { field: 'source', name, type: 'image/jpeg', bytes });
      const res = await post(agent, server.port, '/api/1/upload', { ...headers, 'x-api-key': server.key }, body);
      expectOk(res);
      return JSON.parse(res.body).image;
    };
    const image = await upload(source.bytes, 'photo-12mp.jpg');
    // The service names its images by the URLs it handed out: the public URL, whatever the host used.
    const urlOf = (options) => new URL(generateImageUrl({ endpoint, url: image.url, options, key: KEY, salt: SALT })).pathname;

    // a. A render to 800 px wide JPEG (each request a new result) against the floor. Both walk the same
    // sizes and qualities, so both do the same work: round r renders at quality 85, 86, 84, 87, ... and
    // widths 800, 801, 799, 802, ... (a size no earlier round of ours rendered at that quality). Widths
    // that only grew (800, 801, ...) once gave ours up to twice the floor's output pixels by the last round.
    const around = (centre, i) => centre + (i % 2 ? (i + 1) / 2 : -i / 2);
    let round = 0;
    const a = { floor: [], ours: [] };
    // CPU time of the process doing the work, all threads and the main thread alone; its minor page faults.
    const withCpu = async (pid, run) => {
      const before = threadCpuMs(pid);
      const faultsBefore = minorFaults(pid);
      const sample = await run();
      return { ...sample, ...cpuBetween(before, threadCpuMs(pid)), faults: minorFaults(pid) - faultsBefore };
    };
    const sizes = (render) => () => {
      const quality = around(85, round);
      let i = 0;
      return measure(() => render(around(800, i++), quality), 2, SECONDS);
    };
    const floorRender = sizes((width, quality) => sharp(source.bytes).resize({ width }).jpeg({ quality }).toBuffer());
    const oursRender = sizes(async (width, quality) => {
      const res = await get(server.port, urlOf({ width, quality, format: 'jpg' }));
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    });
    for (; round < ROUNDS; round++) {
      a.floor.push(await withCpu(process.pid, floorRender));
      a.ours.push(await withCpu(server.pid, oursRender));
    }
    // Where the CPU goes, native threads included: one more round of each under perf.
    let perfLines = [];
    if (opts.perf && perfAvailable()) {
      const profiled = async (pid, run) => {
        const recording = recordPerf(pid);
        const sample = await run();
        return recording.stop((file) => summarizePerf(file, sample.count));
      };
      const floorPerf = await profiled(process.pid, floorRender);
      const oursPerf = await profiled(server.pid, oursRender);
      perfLines = ['', 'perf (cpu-clock samples, ms of CPU per render; libvips-cpp\'s hidden functions named by the export before them):', '', ...comparePerf('where a render\'s CPU goes', floorPerf, oursPerf)];
    }
    const aFloor = summarize(a.floor);
    const aOurs = summarize(a.ours);
    report.push('## a. render of a 12 MP JPEG to 800 px wide JPEG, concurrency 2', '');
    const faultsPerRender = (samples) => samples.reduce((sum, s) => sum + s.faults, 0) / samples.reduce((sum, s) => sum + s.count, 0);
    report.push('| | req/s | p50 ms | p99 ms | CPU ms per render (main thread) | minor page faults per render |', '| --- | ---: | ---: | ---: | ---: | ---: |');
    report.push(`| floor (sharp in the bench process) | ${f(aFloor.rps, 2)} | ${f(aFloor.p50, 0)} | ${f(aFloor.p99, 0)} | ${f(aFloor.cpuMsPerUpload)} | ${f(faultsPerRender(a.floor), 0)} |`);
    report.push(`| ours (GET /img, a new result each time) | ${f(aOurs.rps, 2)} | ${f(aOurs.p50, 0)} | ${f(aOurs.p99, 0)} | ${f(aOurs.cpuMsPerUpload)} (${f(aOurs.mainThreadCpuMsPerUpload)}) | ${f(faultsPerRender(a.ours), 0)} |`);
    const byThread = {};
    for (const sample of a.ours) for (const [name, ms] of Object.entries(sample.cpuByThread)) byThread[name] = (byThread[name] ?? 0) + ms;
    report.push('', `ours, CPU ms per render by thread: ${Object.entries(byThread).map(([name, ms]) => `${name} ${f(ms / aOurs.count)}`).join(', ')}`);
    report.push('', `ours / floor: **${f(aOurs.rps / aFloor.rps, 2)}** (goal ≥ 0.8)${aOurs.errors ? `; ${aOurs.errors} errors` : ''}`, ...perfLines, '');

    // b. A kept result against the direct URL of a file of the same size (the result uploaded as an image).
    const keptPath = urlOf({ width: 800, format: 'jpg' });
    const kept = await get(server.port, keptPath);
    const twin = await upload(kept.body, 'twin.jpg');
    const twinPath = new URL(twin.url).pathname;
    const twinBytes = (await get(server.port, twinPath)).body.length;
    ensurePackages(['wrk', 'nginx'], ['wrk', 'nginx'], log);
    const b = { direct: [], kept: [] };
    for (let round = 0; round < ROUNDS; round++) {
      b.direct.push(wrk(`http://127.0.0.1:${server.port}${twinPath}`));
      b.kept.push(wrk(`http://127.0.0.1:${server.port}${keptPath}`));
    }
    const mean = (list) => list.reduce((n, x) => n + x, 0) / list.length;
    const bDirect = mean(b.direct);
    const bKept = mean(b.kept);
    report.push(`## b. a kept result (${kept.body.length} bytes) against a direct URL (${twinBytes} bytes), wrk with 8 connections`, '');
    report.push('| | req/s |', '| --- | ---: |');
    report.push(`| direct URL | ${f(bDirect, 0)} |`);
    report.push(`| kept result (GET /img) | ${f(bKept, 0)} |`);
    report.push('', `kept / direct: **${f(bKept / bDirect, 2)}** (goal ≥ 0.8)`, '');

    // c. AVIF and WebP render costs.
    if (!skip.has('efforts')) {
      report.push('## c. AVIF and WebP renders of the 12 MP JPEG (ms per render, bytes), in this process, one at a time', '');
      const efforts = [0, 1, 2, 3, 4];
      report.push(`| width | WebP q${85} | ${efforts.map((e) => `AVIF effort ${e}`).join(' | ')} |`, `| ---: | ---: | ${efforts.map(() => '---:').join(' | ')} |`);
      for (const w of [500, 1000, 1920]) {
        const time = async (encode) => {
          let bytes = 0;
          const t0 = performance.now();
          for (let i = 0; i < 2; i++) bytes = (await encode(sharp(source.bytes).resize({ width: w })).toBuffer()).length;
          return `${f((performance.now() - t0) / 2, 0)} ms, ${f(bytes / 1000, 0)} KB`;
        };
        const cells = [await time((p) => p.webp({ quality: 85, effort: 4 }))];
        for (const effort of efforts) cells.push(await time((p) => p.avif({ quality: AVIF_QUALITY, effort })));
        report.push(`| ${w} | ${cells.join(' | ')} |`);
      }
      report.push('', `The service's AVIF: effort ${AVIF_EFFORT}, quality ${AVIF_QUALITY}.`, '');
      report.push('| through GET /img (a new result, one at a time) | 500 px | 1000 px | 1920 px |', '| --- | ---: | ---: | ---: |');
      for (const format of ['avif', 'webp', 'jpg']) {
        const cells = [];
        for (const w of [500, 1000, 1920]) {
          const t0 = performance.now();
          const res = await get(server.port, urlOf({ width: w + 1, format }));
          if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
          cells.push(`${f(performance.now() - t0, 0)} ms`);
        }
        report.push(`| ${format} | ${cells.join(' | ')} |`);
      }
      report.push('');
    }

    // d. 64 distinct renders at once.
    if (!skip.has('memory')) {
      const peak = sampleRss(server.pid);
      const statuses = await Promise.all(Array.from({ length: 64 }, (_, i) => get(server.port, urlOf({ width: 1500 + i, format: 'jpg' })).then((res) => res.status, () => 'error')));
      const peakMb = peak();
      const counts = {};
      for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
      report.push('## d. 64 distinct 12 MP renders at once', '');
      report.push(`statuses: ${Object.entries(counts).map(([s, n]) => `${n}× ${s}`).join(', ')}; server peak RSS **${f(peakMb, 0)} MB** (goal < 600, only 200 and 503)`, '');
    }

    // e. A hot file: the app against nginx serving the same file from disk.
    if (!skip.has('wrk')) {
      const publicDir = path.join(workDir, 'public');
      const nginx = await startNginx(publicDir, workDir);
      try {
        const mediumPath = new URL(image.medium.url).pathname;
        const keptRow = (await get(server.port, keptPath)).body.length;
        const keptFile = fs.readdirSync(path.join(publicDir, 'uploads')).find((name) => name.includes('_t') && fs.statSync(path.join(publicDir, 'uploads', name)).size === keptRow);
        const rows = [
          ['a variant (.md)', `http://127.0.0.1:${server.port}${mediumPath}`, `http://127.0.0.1:${nginx.port}${mediumPath}`, fs.statSync(path.join(publicDir, mediumPath)).size],
          ['a kept result (/img)', `http://127.0.0.1:${server.port}${keptPath}`, `http://127.0.0.1:${nginx.port}/uploads/${keptFile}`, keptRow],
        ];
        report.push('## e. a hot file: the app against nginx serving it from disk (wrk, 8 connections)', '');
        report.push('| file | bytes | app req/s | nginx req/s | app / nginx |', '| --- | ---: | ---: | ---: | ---: |');
        for (const [name, app, direct, bytes] of rows) {
          const appRps = [];
          const nginxRps = [];
          for (let round = 0; round < ROUNDS; round++) {
            nginxRps.push(wrk(direct));
            appRps.push(wrk(app));
          }
          report.push(`| ${name} | ${bytes} | ${f(mean(appRps), 0)} | ${f(mean(nginxRps), 0)} | **${f(mean(appRps) / mean(nginxRps), 2)}** |`);
        }
        report.push('', 'goal: app / nginx ≥ 0.2', '');
      } finally {
        nginx.stop();
      }
    }
  } finally {
    await server.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
    process.stdout.write(`machine: ${os.cpus().length} cores (${os.cpus()[0].model}), Node ${process.version}, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}; ${ROUNDS} rounds × ${SECONDS} s\n\n`);
    process.stdout.write(`${report.join('\n')}\n`);
    agent.destroy();
  }
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
