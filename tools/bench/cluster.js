#!/usr/bin/env node
/**
 * What one upload costs each part of a scaled-out deployment, in CPU time (docs/deployment.md):
 *
 *   node bench/cluster.js [--instances 2] [--uploads 120] [--concurrency 4] [--only jpeg-1.7mp,png-800]
 *
 * Starts `npm run cluster` (Varnish, N instances, PostgreSQL, Redis, Ceph S3) in a scratch folder,
 * uploads each fixture `--uploads` times through the balancer with `--concurrency` clients, and
 * reads from /proc the CPU time (user + system) each part's processes used meanwhile: the instances,
 * Varnish, PostgreSQL (postmaster and backends), Redis, and Ceph (monitor, OSD, radosgw). Prints ms of
 * CPU per upload for each, and what that means in uploads per second per core. CPU time, not req/s:
 * on 2 cores the parts compete, and req/s measures the box, not the parts. Only loopback traffic.
 */
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { APP_DIR } = require('../support/app/paths');
const { parseArgs } = require('util');
const { loadFixtures } = require('./fixtures');
const { multipart } = require('../support/http/multipart');

const { values: opts } = parseArgs({
  options: {
    instances: { type: 'string', default: '2' },
    uploads: { type: 'string', default: '120' },
    concurrency: { type: 'string', default: '4' },
    only: { type: 'string', default: 'jpeg-1.7mp,png-800' },
  },
});

/** Every process now: its parent and its CPU ticks (user + system, reaped children included). */
function processTable() {
  const table = new Map();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(pid), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) });
  }
  return table;
}

/**
 * CPU ms of the process `root` and all its descendants (PostgreSQL's backends and Varnish's child
 * are children of their master; a process group would miss the backends, each its own session).
 */
function treeCpuMs(table, root) {
  let ticks = 0;
  for (const [pid, entry] of table) {
    for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0) {
      if (p === root) {
        ticks += entry.ticks;
        break;
      }
    }
  }
  return ticks * (1000 / 100);
}

/** The parts, each a list of root processes. */
const partsOf = (state) => ({
  'instances (all)': state.instances.map((i) => i.pid),
  // varnishncsa too: nginx's access log was nginx's own work.
  Varnish: [state.pids.varnish, state.pids.varnishncsa],
  PostgreSQL: [state.pids.postgres],
  Redis: [state.pids.redis],
  'Ceph radosgw': [state.pids.radosgw],
  'Ceph OSD + monitor': [state.pids['ceph-osd'], state.pids['ceph-mon']],
});

const cpuOf = (parts) => {
  const table = processTable();
  return Object.fromEntries(Object.entries(parts).map(([name, roots]) => [name, roots.reduce((sum, root) => sum + treeCpuMs(table, root), 0)]));
};

function startCluster(instances) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-bench-cluster-'));
  const child = spawn(process.execPath, [path.join(APP_DIR, 'tools', 'cluster', 'cluster.js'), '--instances', String(instances), '--dir', dir], {
    // The bench's clients are all 127.0.0.1 to the instances: they may use every upload slot.
    env: { ...process.env, IMAGE_API_RATE_LIMIT: 'off', IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '16' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('READY')) resolve({ child, state: JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')) });
    });
    child.once('exit', (code) => reject(new Error(`the cluster exited with ${code}`)));
  });
}

function upload(port, key, fixture) {
  const { body, type } = multipart({ key }, { field: 'source', name: fixture.file, type: fixture.type, bytes: fixture.bytes });
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/1/upload', agent: false, headers: { 'content-type': type, 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function run() {
  const fixtures = await loadFixtures(path.join(__dirname, 'out', 'fixtures'));
  const { child, state } = await startCluster(Number(opts.instances));
  const port = Number(new URL(state.url).port);
  const parts = partsOf(state);
  const total = Number(opts.uploads);
  try {
    for (const name of opts.only.split(',')) {
      const fixture = fixtures[name];
      // Warm-up: JIT, connection pools, the Media Library folder.
      for (let i = 0; i < 6; i++) await upload(port, state.key, fixture);
      const before = cpuOf(parts);
      const started = Date.now();
      let next = 0;
      const latencies = [];
      await Promise.all(
        Array.from({ length: Number(opts.concurrency) }, async () => {
          while (next++ < total) latencies.push(await upload(port, state.key, fixture));
        })
      );
      const seconds = (Date.now() - started) / 1000;
      const after = cpuOf(parts);
      const p50 = latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)];
      console.log(`\n${name} (${(fixture.bytes.length / 1024).toFixed(0)} KB, ${fixture.width}x${fixture.height}): ${total} uploads in ${seconds.toFixed(1)} s = ${(total / seconds).toFixed(1)}/s through the balancer, p50 ${p50.toFixed(0)} ms, ${os.cpus().length} cores, ${opts.instances} instances, concurrency ${opts.concurrency}`);
      console.log('part                 CPU ms/upload   uploads/s per core   share');
      const perUpload = Object.fromEntries(Object.keys(parts).map((part) => [part, (after[part] - before[part]) / total]));
      const sum = Object.values(perUpload).reduce((a, b) => a + b, 0);
      for (const [part, ms] of Object.entries(perUpload)) {
        console.log(`${part.padEnd(20)} ${ms.toFixed(1).padStart(13)}   ${(ms > 0 ? 1000 / ms : Infinity).toFixed(0).padStart(18)}   ${((100 * ms) / sum).toFixed(0).padStart(4)} %`);
      }
      console.log(`${'all parts'.padEnd(20)} ${sum.toFixed(1).padStart(13)}   ${(1000 / sum).toFixed(0).padStart(18)}`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
