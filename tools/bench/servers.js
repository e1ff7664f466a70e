// The processes the bench talks to: production servers of the app (bench/server.js), each on its own
// scratch SQLite database and folders, and a loopback server of the fixtures for URL sources.
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');

const { startAppProcess } = require('../support/app/app-process');

/**
 * One production server of the app under `workDir`, rate limits off, on a SQLite database of its own
 * unless `env` says otherwise. `nodeFlags` go to its node (profiling, GC traces); `serverLog` gets its
 * stdout; `ipc` opens a channel for `request()` (server.js answers fill and sweep requests). Resolves
 * once it printed its key and token.
 */
async function startServer(workDir, { nodeFlags = [], serverLog = null, env = {}, ipc = false } = {}) {
  fs.mkdirSync(path.join(workDir, 'public', 'uploads'), { recursive: true });
  const app = await startAppProcess({
    entry: path.join(__dirname, 'server.js'),
    nodeFlags,
    ipc,
    inheritStderr: true,
    // A restart over a large library (library.js) takes its time.
    startTimeoutMs: 600000,
    onStdout: (chunk) => serverLog && fs.appendFileSync(serverLog, chunk),
    ready: (output) => {
      const line = output.split('\n').slice(0, -1).find((l) => l.startsWith('{"ready"'));
      return line ? JSON.parse(line) : null;
    },
    env: {
      NODE_ENV: 'production',
      PUBLIC_DIR: path.join(workDir, 'public'),
      DATABASE_CLIENT: 'sqlite',
      DATABASE_FILENAME: path.join(workDir, 'bench.db'),
      IMAGE_API_TMP_DIR: path.join(workDir, 'tmp'),
      IMAGE_API_RATE_LIMIT: 'off',
      IMAGE_API_FAILED_AUTH_LIMIT: 'off',
      // The bench's clients are all on 127.0.0.1: they may use every upload and render slot.
      IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '16',
      IMAGE_API_MAX_RENDERS_PER_ADDRESS: '64',
      IMAGE_API_URL_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'error',
      ...env,
    },
  });
  return { ...app.found, port: app.port, request: app.send, stop: app.stop };
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
