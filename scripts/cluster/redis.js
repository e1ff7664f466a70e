'use strict';
/** A Redis of the cluster's own on a spare loopback port (no persistence: it holds only counters). */
const fs = require('fs');
const path = require('path');
const { ensurePackages } = require('./debian-packages');
const { freePort, startProcess, waitForPort } = require('./processes');

async function startRedis(dir, log, onStart = () => undefined) {
  ensurePackages(['redis-server'], ['redis-server'], log);
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = startProcess(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { log: path.join(dir, 'redis.log') }
  );
  onStart('redis', child.pid);
  await waitForPort(port, 30000, 'Redis');
  return { pid: child.pid, port, url: `redis://127.0.0.1:${port}` };
}

module.exports = { startRedis };
