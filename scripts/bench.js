#!/usr/bin/env node
/**
 * Upload throughput against the image-processing floor.
 *
 *   npm run bench [-- --json] [--seconds 3] [--rounds 2] [--only jpeg-12mp,png-800] [--concurrency 1,2,8]
 *                    [--skip stock,sources,50mp,rss] [--profile] [--threads] [--node-flags="--trace-gc"] [--server-log F]
 *   npm run bench -- --print report.json      (the tables of an earlier --json run)
 *
 * Starts the production app (bench/server.js) twice, each server on a scratch SQLite database with
 * rate limits off (one serves b, the other c: see main), generates its fixtures (bench/fixtures.js),
 * then measures, alternating in one run:
 *   a. floor:  the bare pipeline in this process (md5, metadata, write the original, a 160×160
 *              cover thumb and a 500-wide medium, with sharp);
 *   b. ours:   POST /api/1/upload, multipart;
 *   c. stock:  Strapi's POST /api/upload with default upload settings.
 * Prints req/s, p50, p99, the server's peak RSS, the ratios b/a and b/c, and the CPU time per upload
 * (all threads, and the main thread alone: where the per-request overhead shows); then base64 and URL
 * sources against multipart; and, on the fresh server, the RSS cost of one 50 MP upload and the peak
 * RSS of a concurrency-8 run of 12 MP uploads. Only loopback traffic.
 */
'use strict';

const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const sharp = require('sharp');
const { loadFixtures } = require('../bench/fixtures');
const { ensureBuilt } = require('./ensure-built');

const ROOT = path.join(__dirname, '..');

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    only: { type: 'string' },
    concurrency: { type: 'string', default: '1,2,8' },
    // Write a V8 CPU profile of the server to bench/out/profile (node --cpu-prof).
    profile: { type: 'boolean', default: false },
    // Skip parts: e.g. --skip stock,sources,50mp while profiling.
    skip: { type: 'string', default: '' },
    // Diagnostics: CPU per upload by thread group; Node flags for the server (e.g. "--trace-gc");
    // a file that gets the server's stdout (where such traces go).
    threads: { type: 'boolean', default: false },
    'node-flags': { type: 'string' },
    'server-log': { type: 'string' },
    // Prints the tables of an earlier `--json` report instead of measuring.
    print: { type: 'string' },
  },
});
const SECONDS = Number(opts.seconds);
const ROUNDS = Number(opts.rounds);
const CONCURRENCY = opts.concurrency.split(',').map(Number);
const SKIP = new Set(opts.skip.split(',').filter(Boolean));
const MODES = ['floor', 'ours', 'stock'].filter((m) => !SKIP.has(m));
const log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const freePort = () =>
  new Promise((resolve) => {
    const server = require('net').createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** One production server of the app, on its own scratch database and folders; `diagnostics`: --profile etc. apply. */
async function startServer(workDir, diagnostics) {
  const port = await freePort();
  fs.mkdirSync(path.join(workDir, 'public', 'uploads'), { recursive: true });
  const flags = !diagnostics ? [] : [
    ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench', 'out', 'profile')}`] : []),
    ...(opts['node-flags'] ? opts['node-flags'].split(' ').filter(Boolean) : []),
  ];
  const child = spawn(process.execPath, [...flags, path.join(ROOT, 'bench', 'server.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PUBLIC_DIR: path.join(workDir, 'public'),
      DATABASE_CLIENT: 'sqlite',
      DATABASE_FILENAME: path.join(workDir, 'bench.db'),
      IMAGE_API_TMP_DIR: path.join(workDir, 'tmp'),
      IMAGE_API_RATE_LIMIT: 'off',
      IMAGE_API_FAILED_AUTH_LIMIT: 'off',
      IMAGE_API_URL_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (opts['server-log']) fs.appendFileSync(opts['server-log'], chunk);
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return { ...info, port, stop: () => new Promise((r) => { child.on('exit', r); child.kill('SIGTERM'); }) };
}

/** Resident set size of a process, in MB (from /proc). */
function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return 0;
  }
}

/**
 * CPU time (user + system) each thread of a process has used so far, in ms, from /proc: `total`, the
 * main (JavaScript) thread's, and by thread name (libuv and V8 helpers are "node", libvips' own
 * "libvips worker"). Steadier than req/s on a noisy box.
 */
function threadCpuMs(pid) {
  const result = { total: 0, main: 0, byName: {} };
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let name, stat;
    try {
      name = tid === String(pid) ? 'main' : fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // utime and stime: fields 14 and 15, in clock ticks (100 per second on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    result.total += ms;
    if (name === 'main') result.main += ms;
    result.byName[name] = (result.byName[name] ?? 0) + ms;
  }
  return result;
}

/** Runs `measure` while watching process `pid`: the sample gets its CPU time (total, main thread). */
async function measureOn(pid, once, concurrency) {
  const cpuBefore = threadCpuMs(pid);
  const sample = await measure(once, concurrency, SECONDS);
  const cpuAfter = threadCpuMs(pid);
  sample.cpu = { total: cpuAfter.total - cpuBefore.total, main: cpuAfter.main - cpuBefore.main };
  sample.cpuByThread = Object.fromEntries(Object.keys(cpuAfter.byName).map((n) => [n, cpuAfter.byName[n] - (cpuBefore.byName[n] ?? 0)]));
  return sample;
}

/** Before each cell: what the last one left running (a collection, closing sockets) must not be charged to it. */
const quietMoment = () => new Promise((r) => setTimeout(r, 300));

function sampleRss(pid) {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMb(pid));
  };
}

function multipart(fields, file) {
  const boundary = `----bench${crypto.randomBytes(8).toString('hex')}`;
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  );
  const body = Buffer.concat([
    Buffer.from(parts.join('')),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

function post(agent, port, urlPath, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: urlPath, agent, headers: { ...headers, 'content-length': body.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      }
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The bare pipeline: what any image host must do at least. */
async function floorPipeline(fixture, dir) {
  const bytes = fixture.bytes;
  const id = crypto.randomBytes(6).toString('hex');
  const ext = fixture.type === 'image/png' ? 'png' : 'jpg';
  const format = ext === 'png' ? 'png' : 'jpeg';
  crypto.createHash('md5').update(bytes).digest('hex');
  await sharp(bytes).metadata();
  // The same encoder settings as the API (JPEG quality 85; PNG defaults: `quality` would quantize).
  const encode = (pipeline) => (format === 'png' ? pipeline.png() : pipeline.jpeg({ quality: 85 }));
  const [thumb, medium] = await Promise.all([
    encode(sharp(bytes).resize(160, 160, { fit: 'cover' })).toBuffer(),
    encode(sharp(bytes).resize({ width: 500, withoutEnlargement: true })).toBuffer(),
    fs.promises.writeFile(path.join(dir, `${id}.${ext}`), bytes),
  ]);
  await Promise.all([
    fs.promises.writeFile(path.join(dir, `${id}.th.${ext}`), thumb),
    fs.promises.writeFile(path.join(dir, `${id}.md.${ext}`), medium),
  ]);
}

/** Runs `once` in `concurrency` loops for `seconds`; counts completions and latencies. */
async function measure(once, concurrency, seconds) {
  const latencies = [];
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const t0 = process.hrtime.bigint();
        try {
          await once();
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        } catch {
          errors++;
        }
      }
    })
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { count: latencies.length, elapsed, latencies, errors };
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

function summarize(samples) {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const count = samples.reduce((n, s) => n + s.count, 0);
  const elapsed = samples.reduce((n, s) => n + s.elapsed, 0);
  return {
    rps: count / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count,
    errors: samples.reduce((n, s) => n + s.errors, 0),
    peakRssMb: Math.max(0, ...samples.map((s) => s.peakRssMb ?? 0)),
    // CPU time per completed upload, of the process doing the work (the floor: this one, running
    // nothing else meanwhile; ours and stock: the server), all threads and the main thread alone.
    cpuMsPerUpload: count && samples.every((s) => s.cpu) ? samples.reduce((n, s) => n + s.cpu.total, 0) / count : NaN,
    mainThreadCpuMsPerUpload: count && samples.every((s) => s.cpu) ? samples.reduce((n, s) => n + s.cpu.main, 0) / count : NaN,
  };
}

async function main() {
  await ensureBuilt();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-bench-'));
  const floorDir = path.join(workDir, 'floor');
  fs.mkdirSync(floorDir);
  log(`bench: fixtures…`);
  const fixtures = await loadFixtures(path.join(ROOT, 'bench', 'out', 'fixtures'));
  const names = (opts.only ? opts.only.split(',') : ['jpeg-12mp', 'jpeg-1.7mp', 'png-800']).filter((n) => fixtures[n]);

  // Two servers of the same app: one for our endpoint (and the RSS checks), one for the stock
  // upload. In one shared process the stock uploads (four resized copies each, formidable temp
  // files) grow the heap and every later garbage collection of ours costs more: the bench would
  // charge our endpoint for the stock path's leftovers. Each is measured on a process of its own.
  log(`bench: starting the production app…`);
  const server = await startServer(path.join(workDir, 'ours'), true);
  const stockServer = MODES.includes('stock') ? await startServer(path.join(workDir, 'stock'), false) : null;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  // Loopback server for URL sources.
  const sourceServer = http.createServer((req, res) => {
    const fixture = Object.values(fixtures).find((f) => req.url === `/${f.file}`);
    if (!fixture) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': fixture.type, 'content-length': fixture.bytes.length });
    res.end(fixture.bytes);
  });
  await new Promise((r) => sourceServer.listen(0, '127.0.0.1', r));
  const sourcePort = sourceServer.address().port;

  const bodies = {};
  for (const name of [...names, 'jpeg-50mp']) {
    const f = fixtures[name];
    bodies[name] = {
      ours: multipart({ key: server.key }, { field: 'source', name: f.file, type: f.type, bytes: f.bytes }),
      stock: multipart({}, { field: 'files', name: f.file, type: f.type, bytes: f.bytes }),
      base64: Buffer.from(`key=${server.key}&source=${encodeURIComponent(f.bytes.toString('base64'))}`),
      url: Buffer.from(`key=${server.key}&source=${encodeURIComponent(`http://127.0.0.1:${sourcePort}/${f.file}`)}`),
    };
  }
  const expectOk = (res) => {
    if (res.status !== 200 && res.status !== 201) throw new Error(`HTTP ${res.status}: ${res.body.toString().slice(0, 200)}`);
  };
  const runners = {
    floor: (name) => () => floorPipeline(fixtures[name], floorDir),
    ours: (name) => async () => expectOk(await post(agent, server.port, '/api/1/upload', { 'content-type': bodies[name].ours.type }, bodies[name].ours.body)),
    stock: (name) => async () =>
      expectOk(await post(agent, stockServer.port, '/api/upload', { 'content-type': bodies[name].stock.type, authorization: `Bearer ${stockServer.token}` }, bodies[name].stock.body)),
    base64: (name) => async () => expectOk(await post(agent, server.port, '/api/1/upload', { 'content-type': 'application/x-www-form-urlencoded' }, bodies[name].base64)),
    url: (name) => async () => expectOk(await post(agent, server.port, '/api/1/upload', { 'content-type': 'application/x-www-form-urlencoded' }, bodies[name].url)),
  };

  // One 50 MP upload first, on the fresh server (after one small warm-up upload): what it adds to
  // the peak RSS. Later, after the load runs, the allocator keeps memory and hides the difference.
  let fiftyMp = null;
  if (!SKIP.has('50mp')) {
    await runners.ours(names[names.length - 1])();
    await new Promise((r) => setTimeout(r, 500));
    const idleRss = rssMb(server.pid);
    const stop50 = sampleRss(server.pid);
    const big = bodies['jpeg-50mp'].ours;
    const bigRes = await post(agent, server.port, '/api/1/upload', { 'content-type': big.type }, big.body);
    const peak50 = stop50();
    fiftyMp = { status: bigRes.status, idleRssMb: idleRss, peakRssMb: peak50, addedMb: peak50 - idleRss };
  }

  // Peak RSS through a concurrency-8 run of 12 MP uploads, on the fresh server.
  let rss12mp = null;
  if (!SKIP.has('rss') && fixtures['jpeg-12mp'] && bodies['jpeg-12mp']) {
    const stopSampling = sampleRss(server.pid);
    const before = rssMb(server.pid);
    const run = await measure(runners.ours('jpeg-12mp'), 8, SECONDS);
    rss12mp = { beforeMb: before, peakMb: stopSampling(), rps: run.count / run.elapsed, errors: run.errors };
  }

  // Warm up every path once (JIT, sharp, the stock plugin's folder).
  for (const name of names) for (const mode of [...MODES, 'base64', 'url']) await runners[mode](name)().catch((e) => log(`warm-up ${mode} ${name}: ${e.message}`));

  const results = [];
  for (const name of names) {
    for (const concurrency of CONCURRENCY) {
      const samples = { floor: [], ours: [], stock: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of MODES) {
          const pid = { floor: process.pid, ours: server.pid, stock: stockServer?.pid }[mode];
          await quietMoment();
          const stopSampling = sampleRss(pid);
          const sample = await measureOn(pid, runners[mode](name), concurrency);
          sample.peakRssMb = stopSampling();
          samples[mode].push(sample);
          const perUpload = (ms) => (ms / Math.max(1, sample.count)).toFixed(1);
          log(
            `  ${name} c=${concurrency} ${mode} round ${round + 1}: ${(sample.count / sample.elapsed).toFixed(2)} req/s, ` +
              `CPU ms/upload ${perUpload(sample.cpu.total)} (main thread ${perUpload(sample.cpu.main)})${sample.errors ? `, ${sample.errors} errors` : ''}`
          );
          if (opts.threads) {
            const groups = Object.entries(sample.cpuByThread).map(([n, ms]) => `${n} ${perUpload(ms)}`);
            log(`      by thread: ${groups.join(', ')}`);
          }
        }
      }
      const row = { fixture: name, concurrency, floor: summarize(samples.floor), ours: summarize(samples.ours), stock: summarize(samples.stock.length ? samples.stock : [{ count: 0, elapsed: 1, latencies: [], errors: 0 }]) };
      row.oursOverFloor = row.ours.rps / row.floor.rps;
      row.oursOverStock = row.ours.rps / row.stock.rps;
      results.push(row);
    }
  }

  // Sources at concurrency 2: base64 and URL against multipart, alternating.
  const sources = [];
  for (const name of SKIP.has('sources') ? [] : names) {
    const samples = { ours: [], base64: [], url: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['ours', 'base64', 'url']) {
        await quietMoment();
        samples[mode].push(await measureOn(server.pid, runners[mode](name), 2));
      }
    }
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
    sources.push({ fixture: name, multipart: s.ours.rps, base64: s.base64.rps, url: s.url.rps, base64OverMultipart: s.base64.rps / s.ours.rps, urlOverMultipart: s.url.rps / s.ours.rps });
    const line = (k) => `${s[k].rps.toFixed(2)} req/s (CPU ms/upload ${s[k].cpuMsPerUpload.toFixed(1)}, main thread ${s[k].mainThreadCpuMsPerUpload.toFixed(1)})`;
    log(`  ${name} sources: multipart ${line('ours')}, base64 ${line('base64')}, url ${line('url')}`);
  }


  agent.destroy();
  sourceServer.close();
  await server.stop();
  await stockServer?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });

  const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, sharp: JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/sharp/package.json'), 'utf8')).version, libvips: sharp.versions.vips };
  const report = { machine, seconds: SECONDS, rounds: ROUNDS, results, sources, fiftyMp, rss12mp };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  print(report);
}

function print({ machine, results, sources, fiftyMp, rss12mp, seconds, rounds }) {
  const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  const out = [];
  out.push(`machine: ${machine.cpus} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, sharp ${machine.sharp} / libvips ${machine.libvips}`);
  out.push(`${rounds} rounds × ${seconds} s per cell, alternating floor / ours / stock`);
  out.push('');
  out.push('| fixture | conc | floor req/s | ours req/s | ours p50 / p99 ms | ours peak RSS MB | stock req/s | stock p50 / p99 ms | stock peak RSS MB | b/a | b/c | CPU ms/upload: floor / ours (main thread) |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    out.push(
      `| ${r.fixture} | ${r.concurrency} | ${f(r.floor.rps)} | ${f(r.ours.rps)} | ${f(r.ours.p50, 0)} / ${f(r.ours.p99, 0)} | ${f(r.ours.peakRssMb, 0)} | ${f(r.stock.rps, 2)} | ${f(r.stock.p50, 0)} / ${f(r.stock.p99, 0)} | ${f(r.stock.peakRssMb, 0)} | ${f(r.oursOverFloor, 2)} | ${f(r.oursOverStock, 1)} | ${f(r.floor.cpuMsPerUpload)} / ${f(r.ours.cpuMsPerUpload)} (${f(r.ours.mainThreadCpuMsPerUpload)}) |` +
        (r.ours.errors || r.stock.errors ? ` errors: ours ${r.ours.errors}, stock ${r.stock.errors}` : '')
    );
  }
  out.push('');
  out.push('| fixture (concurrency 2) | multipart req/s | base64 req/s | URL req/s | base64 / multipart | URL / multipart |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const s of sources) out.push(`| ${s.fixture} | ${f(s.multipart)} | ${f(s.base64)} | ${f(s.url)} | ${f(s.base64OverMultipart, 2)} | ${f(s.urlOverMultipart, 2)} |`);
  out.push('');
  if (rss12mp) {
    out.push(`concurrency-8 run of 12 MP uploads (ours) on the fresh server: ${f(rss12mp.rps)} req/s, RSS ${f(rss12mp.beforeMb, 0)} MB before → ${f(rss12mp.peakMb, 0)} MB peak${rss12mp.errors ? `, ${rss12mp.errors} errors` : ''}`);
  }
  if (fiftyMp) {
    out.push(`one 50 MP JPEG upload (HTTP ${fiftyMp.status}) on the fresh server: RSS ${f(fiftyMp.idleRssMb, 0)} MB before → ${f(fiftyMp.peakRssMb, 0)} MB peak (+${f(fiftyMp.addedMb, 0)} MB)`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

const run = opts.print ? async () => print(JSON.parse(fs.readFileSync(opts.print, 'utf8'))) : main;
run().catch((error) => {
  process.stderr.write(`bench: ${error.stack}\n`);
  process.exit(1);
});
