'use strict';
/** A Redis of its own on a spare loopback port, no persistence (it holds only counters). */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { freePort, waitForPort } = require('./ports');
const { exited, startProcess } = require('./processes');

/**
 * `port` to come back on a known one; `dir` (a new temp folder unless given) holds `redis.log`;
 * `onSpawn(pid)` hears the pid before it is ready.
 */
async function startRedis({ port, dir, onSpawn = () => undefined } = {}) {
  const chosen = port ?? (await freePort());
  const home = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-redis-'));
  fs.mkdirSync(home, { recursive: true });
  const log = path.join(home, 'redis.log');
  let child = null;
  const start = async () => {
    child = startProcess('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', home], { log });
    onSpawn(child.pid);
    await waitForPort(chosen, 30000, `Redis (log: ${log})`);
  };
  const stop = async () => {
    if (!child) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited(child);
    child = null;
  };
  await start();
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    pid: () => child?.pid ?? -1,
    /** SIGSTOP: it keeps its sockets but answers nothing. */
    hang: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    stop,
    start,
    async destroy() {
      await stop();
      if (!dir) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

module.exports = { startRedis };
