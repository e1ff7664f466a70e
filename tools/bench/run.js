#!/usr/bin/env node
/**
 * Upload throughput against the image-processing floor.
 *
 *   npm run bench [-- --json] [--seconds 3] [--rounds 2] [--only jpeg-12mp,png-800] [--concurrency 1,2,8]
 *                    [--skip stock,sources,50mp,rss] [--profile] [--perf] [--perf-js] [--threads] [--node-flags="--trace-gc"] [--server-log F]
 *                    [--variant "UV_THREADPOOL_SIZE=8 IMAGE_API_SHARP_THREADS=2"] (--skip variant: not measured)
 *   npm run bench -- --print report.json      (the tables of an earlier --json run)
 *
 * Starts the production app (server.js) twice (three times with --variant), each server on a
 * scratch SQLite database with rate limits off (one serves b, the other c: see setUp), generates
 * its fixtures (fixtures.js), then measures, alternating in one run:
 *   a. floor:  the bare pipeline in this process (floor.js);
 *   b. ours:   POST /api/1/upload, multipart;
 *   c. stock:  Strapi's POST /api/upload with default upload settings.
 * With --variant, a third server of ours runs with those environment variables added (a setting to
 * try: libuv's pool, libvips' threads, SQLite's cache), measured in the same alternation, d:
 * the variant's rate over ours' is the setting's effect without the minutes-apart noise of two runs.
 * Prints req/s, p50, p99, the server's peak RSS, the ratios b/a and b/c, and the CPU time per upload
 * (all threads, and the main thread alone: where the per-request overhead shows); then base64 and URL
 * sources against multipart; and, on the fresh server, the RSS cost of one 50 MP upload and the peak
 * RSS of a concurrency-8 run of 12 MP uploads; and moderation's cost: classified uploads against
 * unclassified ones and the floor plus one bare classification. Only loopback traffic.
 */
'use strict';

const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const sharp = require('sharp');
const { ensureBuilt } = require('../support/app/ensure-built');
const { loadFixtures } = require('./fixtures');
const { floorPipeline } = require('./floor');
const { loadBareClassifier } = require('./bare-classifier');
const { expectOk, measure, post, summarize } = require('./http-load');
const { multipart } = require('../support/http/multipart');
const { cpuBetween, minorFaults, rssMb, sampleRss, threadCpuMs } = require('../support/servers/process-stats');
const { printReport } = require('./report');
const { startFixtureServer, startServer } = require('./servers');
const { perfAvailable, recordPerf, summarizePerf, comparePerf, javaScriptByConcern, concernLines } = require('./perf-profile');

const { APP_DIR: ROOT } = require('../support/app/paths');

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    only: { type: 'string' },
    concurrency: { type: 'string', default: '1,2,8' },
    // Write a V8 CPU profile of the server to bench/out/profile (node --cpu-prof).
    profile: { type: 'boolean', default: false },
    // One more round of floor and ours per cell under Linux perf (perf-profile.js): where the CPU goes, native threads too.
    perf: { type: 'boolean', default: false },
    // With --perf: ours' JavaScript thread by concern (perf-profile.js, javaScriptByConcern); the
    // server runs with --perf-basic-prof, which writes /tmp/perf-<pid>.map as it compiles.
    'perf-js': { type: 'boolean', default: false },
    // Skip parts: e.g. --skip stock,sources,50mp while profiling.
    skip: { type: 'string', default: '' },
    // Diagnostics: CPU per upload by thread group; Node flags for the server (e.g. "--trace-gc");
    // a file that gets the server's stdout (where such traces go).
    threads: { type: 'boolean', default: false },
    'node-flags': { type: 'string' },
    'server-log': { type: 'string' },
    // Prints the tables of an earlier `--json` report instead of measuring.
    print: { type: 'string' },
    // A third server of ours with these environment variables (NAME=VALUE, space-separated): d, the variant.
    variant: { type: 'string' },
  },
});
const SECONDS = Number(opts.seconds);
const ROUNDS = Number(opts.rounds);
const CONCURRENCY = opts.concurrency.split(',').map(Number);
const SKIP = new Set(opts.skip.split(',').filter(Boolean));
const log = (...args) => process.stderr.write(`${args.join(' ')}\n`);
/** --variant's environment: NAME=VALUE pairs, separated by white space; a run is refused without them. */
function variantEnv(text) {
  if (text === undefined || opts.print) return null;
  const pairs = text.split(/\s+/).filter(Boolean).map((pair) => /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair));
  if (pairs.length > 0 && pairs.every(Boolean)) return Object.fromEntries(pairs.map(([, name, value]) => [name, value]));
  log(`bench: --variant takes NAME=VALUE pairs, separated by spaces: "${text}"`);
  process.exit(2);
}
const VARIANT_ENV = variantEnv(opts.variant);
const MODES = ['floor', 'ours', 'stock', ...(VARIANT_ENV ? ['variant'] : [])].filter((m) => !SKIP.has(m));
/** The order of a round: ours and the variant trade places every other round (what runs second pays for what ran first). */
const TRADE_PLACES = MODES.includes('ours') && MODES.includes('variant');
const modesOfRound = (round) =>
  round % 2 === 0 || !TRADE_PLACES ? MODES : MODES.map((mode) => (mode === 'ours' ? 'variant' : mode === 'variant' ? 'ours' : mode));

/** Before each cell: what the last one left running (a collection, closing sockets) must not be charged to it. */
const quietMoment = () => new Promise((r) => setTimeout(r, 300));

/** Runs `once` in a closed loop while watching process `pid`: the sample gets its CPU time. */
async function measureOn(pid, once, concurrency) {
  const before = threadCpuMs(pid);
  const faultsBefore = minorFaults(pid);
  const clientBefore = process.cpuUsage();
  const sample = await measure(once, concurrency, SECONDS);
  const client = process.cpuUsage(clientBefore);
  const faults = minorFaults(pid) - faultsBefore;
  // The HTTP client's own CPU (this process) when it loads a server: it shares the cores with it,
  // and the floor, run in this process, has no client to pay for.
  const clientCpuMs = pid === process.pid ? 0 : (client.user + client.system) / 1000;
  return Object.assign(sample, cpuBetween(before, threadCpuMs(pid)), { clientCpuMs, faults });
}

/** The servers, the fixtures and their request bodies, and one runner per mode. */
async function setUp() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-bench-'));
  const floorDir = path.join(workDir, 'floor');
  fs.mkdirSync(floorDir);
  log('bench: fixtures…');
  const fixtures = await loadFixtures(path.join(__dirname, 'out', 'fixtures'));
  const names = (opts.only ? opts.only.split(',') : ['jpeg-12mp', 'jpeg-1.7mp', 'png-800', 'heic-12mp', 'avif-12mp']).filter((n) => fixtures[n]);

  // Two servers of the same app: one for our endpoint (and the RSS checks), one for the stock
  // upload. In one shared process the stock uploads (four resized copies each, formidable temp
  // files) grow the heap and every later garbage collection of ours costs more: the bench would
  // charge our endpoint for the stock path's leftovers. Each is measured on a process of its own.
  // With --variant, a third: ours with the variant's environment (and the same Node flags).
  log('bench: starting the production app…');
  const diagnostics = {
    nodeFlags: [
      ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(__dirname, 'out', 'profile')}`] : []),
      ...(opts['perf-js'] ? ['--perf-basic-prof'] : []),
      ...(opts['node-flags'] ? opts['node-flags'].split(' ').filter(Boolean) : []),
    ],
    serverLog: opts['server-log'] ?? null,
  };
  // The variant first: its settings are the likeliest to keep a server from starting.
  const variantServer = MODES.includes('variant') ? await startServer(path.join(workDir, 'variant'), { nodeFlags: diagnostics.nodeFlags, env: VARIANT_ENV }) : null;
  const started = [variantServer];
  let server;
  let stockServer;
  try {
    server = await startServer(path.join(workDir, 'ours'), diagnostics);
    started.push(server);
    stockServer = MODES.includes('stock') ? await startServer(path.join(workDir, 'stock')) : null;
  } catch (error) {
    // The servers already running would outlive the bench.
    await Promise.all(started.map((s) => s?.stop()));
    throw error;
  }
  const sources = await startFixtureServer(fixtures);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const bodies = {};
  for (const name of [...names, 'jpeg-50mp']) {
    const f = fixtures[name];
    const file = (field) => ({ field, name: f.file, type: f.type, bytes: f.bytes });
    bodies[name] = {
      ours: multipart({ key: server.key }, file('source')),
      stock: multipart({}, file('files')),
      base64: Buffer.from(`key=${server.key}&source=${encodeURIComponent(f.bytes.toString('base64'))}`),
      url: Buffer.from(`key=${server.key}&source=${encodeURIComponent(`http://127.0.0.1:${sources.port}/${f.file}`)}`),
      moderated: multipart({ key: server.moderatedKey }, file('source')),
      variant: variantServer && multipart({ key: variantServer.key }, file('source')),
    };
  }
  const upload = (port, body, headers = {}) => async () =>
    expectOk(await post(agent, port, '/api/1/upload', { 'content-type': body.type, ...headers }, body.body));
  const form = (body) => ({ type: 'application/x-www-form-urlencoded', body });
  const runners = {
    floor: (name) => () => floorPipeline(fixtures[name], floorDir),
    ours: (name) => upload(server.port, bodies[name].ours),
    stock: (name) => async () =>
      expectOk(await post(agent, stockServer.port, '/api/upload', { 'content-type': bodies[name].stock.type, authorization: `Bearer ${stockServer.token}` }, bodies[name].stock.body)),
    base64: (name) => upload(server.port, form(bodies[name].base64)),
    url: (name) => upload(server.port, form(bodies[name].url)),
    moderated: (name) => upload(server.port, bodies[name].moderated),
    variant: (name) => upload(variantServer.port, bodies[name].variant),
  };
  const pids = { floor: process.pid, ours: server.pid, stock: stockServer?.pid, variant: variantServer?.pid };
  return { workDir, fixtures, names, server, stockServer, variantServer, sources, agent, bodies, runners, pids };
}

async function tearDown({ workDir, server, stockServer, variantServer, sources, agent }) {
  agent.destroy();
  sources.close();
  await server.stop();
  await stockServer?.stop();
  await variantServer?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
  // --perf-js: the maps V8 wrote for perf as the servers compiled (/tmp/perf-<pid>.map).
  for (const s of [server, variantServer]) if (s) fs.rmSync(`/tmp/perf-${s.pid}.map`, { force: true });
}

/**
 * One 50 MP upload on the fresh server (after one small warm-up upload): what it adds to the peak
 * RSS. Later, after the load runs, the allocator keeps memory and hides the difference.
 */
async function measureFiftyMp({ names, runners, server, agent, bodies }) {
  await runners.ours(names[names.length - 1])();
  await new Promise((r) => setTimeout(r, 500));
  const idleRssMb = rssMb(server.pid);
  const stop = sampleRss(server.pid);
  const big = bodies['jpeg-50mp'].ours;
  const res = await post(agent, server.port, '/api/1/upload', { 'content-type': big.type }, big.body);
  const peakRssMb = stop();
  return { status: res.status, idleRssMb, peakRssMb, addedMb: peakRssMb - idleRssMb };
}

/** Peak RSS through a concurrency-8 run of 12 MP uploads, on the fresh server. */
async function measureRss12mp({ runners, server }) {
  const stop = sampleRss(server.pid);
  const beforeMb = rssMb(server.pid);
  const run = await measure(runners.ours('jpeg-12mp'), 8, SECONDS);
  return { beforeMb, peakMb: stop(), rps: run.count / run.elapsed, errors: run.errors };
}

/** Every path once (JIT, sharp, the stock plugin's folder). */
async function warmUp({ names, runners }) {
  for (const name of names) {
    for (const mode of [...MODES, 'base64', 'url']) await runners[mode](name)().catch((e) => log(`warm-up ${mode} ${name}: ${e.message}`));
  }
}

function logSample(name, concurrency, mode, round, sample) {
  const perUpload = (ms) => (ms / Math.max(1, sample.count)).toFixed(1);
  log(
    `  ${name} c=${concurrency} ${mode} round ${round + 1}: ${(sample.count / sample.elapsed).toFixed(2)} req/s, ` +
      `CPU ms/upload ${perUpload(sample.cpu.total)} (main thread ${perUpload(sample.cpu.main)}), page faults ${perUpload(sample.faults)}` +
      `${sample.clientCpuMs ? `, client ${perUpload(sample.clientCpuMs)}` : ''}${sample.errors ? `, ${sample.errors} errors` : ''}`
  );
  if (opts.threads) log(`      by thread: ${Object.entries(sample.cpuByThread).map(([n, ms]) => `${n} ${perUpload(ms)}`).join(', ')}`);
}

/** One row of the main table: floor, ours, stock (and the variant), alternating, ROUNDS times. */
async function measureCell({ runners, pids }, name, concurrency) {
  const samples = { floor: [], ours: [], stock: [], variant: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modesOfRound(round)) {
      await quietMoment();
      const stop = sampleRss(pids[mode]);
      const sample = await measureOn(pids[mode], runners[mode](name), concurrency);
      sample.peakRssMb = stop();
      samples[mode].push(sample);
      logSample(name, concurrency, mode, round, sample);
    }
  }
  const none = [{ count: 0, elapsed: 1, latencies: [], errors: 0 }];
  const row = { fixture: name, concurrency, floor: summarize(samples.floor), ours: summarize(samples.ours), stock: summarize(samples.stock.length ? samples.stock : none) };
  if (samples.variant.length) row.variant = summarize(samples.variant);
  if ((opts.perf || opts['perf-js']) && perfAvailable()) {
    let javaScript = null;
    const profiled = async (mode) => {
      await quietMoment();
      const callGraph = opts['perf-js'] && mode === 'ours';
      const recording = recordPerf(pids[mode], { callGraph });
      const sample = await measure(runners[mode](name), concurrency, SECONDS);
      return recording.stop((file) => {
        if (callGraph) javaScript = javaScriptByConcern(file, pids[mode], sample.count);
        return summarizePerf(file, sample.count);
      });
    };
    const floorPerf = await profiled('floor');
    row.perf = comparePerf(`${name} c=${concurrency}: where an upload's CPU goes`, floorPerf, await profiled('ours'));
    if (javaScript) row.perf.push('', ...concernLines(`${name} c=${concurrency}: ours' JavaScript thread by concern`, javaScript));
  }
  return { ...row, oursOverFloor: row.ours.rps / row.floor.rps, oursOverStock: row.ours.rps / row.stock.rps, ...(row.variant ? { variantOverOurs: row.variant.rps / row.ours.rps } : {}) };
}

async function measureCells(bench) {
  const rows = [];
  for (const name of bench.names) for (const concurrency of CONCURRENCY) rows.push(await measureCell(bench, name, concurrency));
  return rows;
}

/**
 * Moderation's cost, at concurrency 2, alternating: uploads of a key whose uploads are classified,
 * against the same uploads unclassified and against the floor plus one bare classification (the
 * model in this process, on the floor's own medium: bare-classifier.js).
 */
async function measureModeration({ names, runners, fixtures, pids, server }) {
  const classify = await loadBareClassifier();
  const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-bench-floor-'));
  const classifiedFloor = (name) => async () => classify(await floorPipeline(fixtures[name], floorDir));
  const rows = [];
  try {
    for (const name of names) {
      await runners.moderated(name)();
      const samples = { floor: [], floorClassified: [], ours: [], moderated: [] };
      const run = { floor: runners.floor(name), floorClassified: classifiedFloor(name), ours: runners.ours(name), moderated: runners.moderated(name) };
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of Object.keys(samples)) {
          await quietMoment();
          const pid = mode.startsWith('floor') ? pids.floor : server.pid;
          const stop = sampleRss(pid);
          const sample = await measureOn(pid, run[mode], 2);
          sample.peakRssMb = stop();
          samples[mode].push(sample);
        }
      }
      const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
      rows.push({
        fixture: name,
        floor: s.floor.rps,
        floorClassified: s.floorClassified.rps,
        ours: s.ours.rps,
        moderated: s.moderated.rps,
        oursOverFloor: s.ours.rps / s.floor.rps,
        moderatedOverClassifiedFloor: s.moderated.rps / s.floorClassified.rps,
        moderatedOverOurs: s.moderated.rps / s.ours.rps,
        moderatedPeakRssMb: s.moderated.peakRssMb,
      });
      log(
        `  ${name} moderation: floor ${s.floor.rps.toFixed(2)}, floor+classification ${s.floorClassified.rps.toFixed(2)}, ` +
          `ours ${s.ours.rps.toFixed(2)}, ours classified ${s.moderated.rps.toFixed(2)} req/s (peak RSS ${s.moderated.peakRssMb.toFixed(0)} MB)`
      );
    }
  } finally {
    fs.rmSync(floorDir, { recursive: true, force: true });
  }
  return rows;
}

/** Base64 and URL sources against multipart, at concurrency 2, alternating. */
async function measureSources({ names, runners, server }) {
  const rows = [];
  for (const name of names) {
    const samples = { ours: [], base64: [], url: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of Object.keys(samples)) {
        await quietMoment();
        samples[mode].push(await measureOn(server.pid, runners[mode](name), 2));
      }
    }
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
    rows.push({ fixture: name, multipart: s.ours.rps, base64: s.base64.rps, url: s.url.rps, base64OverMultipart: s.base64.rps / s.ours.rps, urlOverMultipart: s.url.rps / s.ours.rps });
    const line = (k) => `${s[k].rps.toFixed(2)} req/s (CPU ms/upload ${s[k].cpuMsPerUpload.toFixed(1)}, main thread ${s[k].mainThreadCpuMsPerUpload.toFixed(1)})`;
    log(`  ${name} sources: multipart ${line('ours')}, base64 ${line('base64')}, url ${line('url')}`);
  }
  return rows;
}

function machine() {
  const sharpVersion = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/sharp/package.json'), 'utf8')).version;
  const cpus = os.cpus();
  return { cpus: cpus.length, cpu: cpus[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, sharp: sharpVersion, libvips: sharp.versions.vips };
}

async function main() {
  await ensureBuilt();
  const bench = await setUp();
  const report = { machine: machine(), seconds: SECONDS, rounds: ROUNDS, variant: MODES.includes('variant') ? VARIANT_ENV : null, fiftyMp: null, rss12mp: null, results: [], sources: [] };
  try {
    // The memory figures first, on the fresh server.
    if (!SKIP.has('50mp')) report.fiftyMp = await measureFiftyMp(bench);
    if (!SKIP.has('rss') && bench.bodies['jpeg-12mp']) report.rss12mp = await measureRss12mp(bench);
    await warmUp(bench);
    report.results = await measureCells(bench);
    if (!SKIP.has('sources')) report.sources = await measureSources(bench);
    if (!SKIP.has('moderation')) report.moderation = await measureModeration(bench);
  } finally {
    await tearDown(bench);
  }
  if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printReport(report);
}

const run = opts.print ? async () => printReport(JSON.parse(fs.readFileSync(opts.print, 'utf8'))) : main;
run().catch((error) => {
  process.stderr.write(`bench: ${error.stack}\n`);
  process.exit(1);
});
