#!/usr/bin/env node
/**
 * The blocklist's lookups against its size (docs/moderation.md, "Blocklist"; docs/performance.md):
 *
 *   node tools/bench/blocklist.js [--entries 100000] [--times 200] [--database sqlite|postgres|mysql]
 *
 * Starts the production app (server.js) on a scratch database, times `check()` of a PDQ that
 * matches nothing, of one within 10 bits of a listed PDQ, and of an unlisted SHA-256, with 1,000 random
 * PDQ hashes listed (through the import admins use), then with --entries, and prints the ratios. The
 * PDQ lookups are timed twice: as uploads make them (the copy in memory, moderation/pdq-mirror.ts,
 * once loaded) and as the table answers them (the multi-index query, the fallback). Prints each time
 * and its ratio to the small list's, and the copy's memory. Only loopback traffic.
 */
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const { ensureBuilt } = require('../support/app/ensure-built');
const { createScratchDb } = require('../support/app/scratch-db');
const { startServer } = require('./servers');

const { values: opts } = parseArgs({
  options: { entries: { type: 'string', default: '100000' }, times: { type: 'string', default: '200' }, database: { type: 'string', default: 'sqlite' } },
});
const log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const randomHash = () => crypto.randomBytes(32).toString('hex');
/** `hash` with `bits` of its 256 bits flipped, at random places. */
function flipped(hash, bits) {
  const bytes = Buffer.from(hash, 'hex');
  const chosen = new Set();
  while (chosen.size < bits) chosen.add(crypto.randomInt(256));
  for (const bit of chosen) bytes[bit >> 3] ^= 1 << (bit & 7);
  return bytes.toString('hex');
}

async function main() {
  await ensureBuilt();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-blocklist-'));
  const db = await createScratchDb(opts.database);
  const server = await startServer(workDir, { env: db.env, ipc: true });
  try {
    const entries = Number(opts.entries);
    const times = Number(opts.times);
    const listed = Array.from({ length: entries }, randomHash);
    const probe = { miss: randomHash(), hit: flipped(listed[Math.floor(entries / 2)], 10), sha256: randomHash(), times };
    const small = Math.min(1000, entries);
    log(`blocklist bench: ${small} PDQ hashes…`);
    const few = await server.request({ type: 'blocklist', ...probe, hit: flipped(listed[0], 10), add: listed.slice(0, small) });
    log(`blocklist bench: ${entries} PDQ hashes…`);
    const started = Date.now();
    const full = await server.request({ type: 'blocklist', ...probe, add: listed.slice(small) });
    const importSeconds = (Date.now() - started) / 1000;
    const row = (name, a, b) =>
      `| ${name} | ${a.p50.toFixed(2)} / ${a.p99.toFixed(2)} | ${b.p50.toFixed(2)} / ${b.p99.toFixed(2)} | ${(b.p50 / a.p50).toFixed(2)} | ${a.matched ? 'match' : 'none'} / ${b.matched ? 'match' : 'none'} |`;
    console.log(`${opts.database}: ${few.counts.pdq} then ${full.counts.pdq} PDQ hashes listed (${entries - small} imported in ${importSeconds.toFixed(1)} s), ${times} checks each, ms p50 / p99:`);
    console.log('');
    console.log(`| check | ${small} entries | ${entries} entries | ratio (p50) | found |`);
    console.log('| --- | ---: | ---: | ---: | --- |');
    console.log(row('PDQ matching nothing (copy in memory)', few.miss, full.miss));
    console.log(row('PDQ within 10 bits of a listed one (copy in memory)', few.hit, full.hit));
    console.log(row('PDQ matching nothing (table)', few.missTable, full.missTable));
    console.log(row('PDQ within 10 bits of a listed one (table)', few.hitTable, full.hitTable));
    console.log(row('SHA-256 not listed', few.exact, full.exact));
    console.log('');
    const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
    console.log(`copy in memory at ${full.mirror.entries} entries: ${mb(full.mirror.bytes)} of typed arrays, loaded in ${full.mirror.loadMs.toFixed(0)} ms; the server's heap ${mb(few.memory.heapUsed)} → ${mb(full.memory.heapUsed)}, array buffers ${mb(few.memory.arrayBuffers)} → ${mb(full.memory.arrayBuffers)}`);
  } finally {
    await server.stop();
    await db.drop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  log(`blocklist bench: ${error.stack}`);
  process.exit(1);
});
