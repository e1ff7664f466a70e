#!/usr/bin/env node
/**
 * How much of the upload benchmark's gap HTTP alone makes: the floor (floor.js, in this process)
 * against the same pipeline behind a bare node:http server with busboy (http-floor-server.js, a
 * process of its own), loaded over loopback by the same client at concurrency 2, alternating rounds.
 * Its ratio is what a server that added nothing to HTTP would score in `npm run bench` (the client
 * shares the cores, the body crosses a socket and is parsed): docs/performance.md, "HTTP alone".
 *
 *   node tools/bench/http-floor.js [--only jpeg-1.7mp,png-800,jpeg-12mp] [--rounds 3] [--seconds 4]
 */
'use strict';

const { fork } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const { loadFixtures } = require('./fixtures');
const { floorPipeline } = require('./floor');
const { post, measure, expectOk } = require('./http-load');
const { multipart } = require('../support/http/multipart');

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string', default: 'jpeg-12mp,jpeg-1.7mp,png-800' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
  },
});

async function main() {
  const fixtures = await loadFixtures(path.join(__dirname, 'out', 'fixtures'));
  const server = fork(path.join(__dirname, 'http-floor-server.js'));
  const { port } = await new Promise((resolve, reject) => {
    server.once('message', resolve);
    server.once('exit', (code) => reject(new Error(`the HTTP floor's server exited (${code})`)));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-floor-'));
  try {
    console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0].model}), Node ${process.version}; ${opts.rounds} rounds × ${opts.seconds} s, concurrency 2\n`);
    console.log('| fixture | floor uploads/s | HTTP floor uploads/s | HTTP floor / floor |');
    console.log('| --- | ---: | ---: | ---: |');
    for (const name of opts.only.split(',')) {
      const fixture = fixtures[name];
      if (!fixture) throw new Error(`no fixture ${name}`);
      const body = multipart({ key: 'unused' }, { field: 'source', name: fixture.file, type: fixture.type, bytes: fixture.bytes });
      const runs = {
        floor: () => floorPipeline(fixture, dir),
        http: async () => expectOk(await post(agent, port, '/', { 'content-type': body.type }, body.body)),
      };
      // Warmed: the JIT, sharp's first calls, the sockets.
      for (const run of Object.values(runs)) for (let i = 0; i < 20; i++) await run();
      const rates = { floor: [], http: [] };
      for (let round = 0; round < Number(opts.rounds); round++) {
        for (const mode of ['floor', 'http']) {
          const sample = await measure(runs[mode], 2, Number(opts.seconds));
          rates[mode].push(sample.count / sample.elapsed);
        }
      }
      const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
      console.log(`| ${name} | ${mean(rates.floor).toFixed(1)} | ${mean(rates.http).toFixed(1)} | ${(mean(rates.http) / mean(rates.floor)).toFixed(2)} |`);
    }
  } finally {
    server.kill('SIGTERM');
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
