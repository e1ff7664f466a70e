// The processes the bench talks to: production servers of the app (bench/server.js), each on its own
// scratch SQLite database and folders, and a loopback server of the fixtures for URL sources.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');

const ROOT = path.join(__dirname, '..');

const { freePort } = require('../scripts/cluster/processes');

/**
 * One production server of the app under `workDir`, rate limits off, on a SQLite database of its own
 * unless `env` says otherwise. `nodeFlags` go to its node (profiling, GC traces); `serverLog` gets its
 * stdout; `ipc` opens a channel for `request()` (server.js answers fill and sweep requests). Resolves
 * once it printed its key and token.
 */
async function startServer(workDir, { nodeFlags = [], serverLog = null, env = {}, ipc = false } = {}) {
  const port = await freePort();
  fs.mkdirSync(path.join(workDir, 'public', 'uploads'), { recursive: true });
  const child = spawn(process.execPath, [...nodeFlags, path.join(__dirname, 'server.js')], {
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
      // The bench's clients are all on 127.0.0.1: they may use every upload slot.
      IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '16',
      IMAGE_API_URL_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc'] : [])],
  });
  const info = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (serverLog) fs.appendFileSync(serverLog, chunk);
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  /** Sends an IPC request and resolves with the server's answer (rejects on its error). */
  const request = (message) =>
    new Promise((resolve, reject) => {
      child.once('message', (reply) => (reply.type === 'error' ? reject(new Error(reply.message)) : resolve(reply)));
      child.send(message);
    });
  return { ...info, port, request, stop: () => new Promise((r) => { child.on('exit', r); child.kill('SIGTERM'); }) };
}

/** Serves the fixtures at /<file> on a loopback port, for URL sources. */
async function startFixtureServer(fixtures) {
  const server = http.createServer((req, res) => {
    const fixture = Object.values(fixtures).find((f) => req.url === `/${f.file}`);
    if (!fixture) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': fixture.type, 'content-length': fixture.bytes.length });
    res.end(fixture.bytes);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, close: () => server.close() };
}

module.exports = { startServer, startFixtureServer };
