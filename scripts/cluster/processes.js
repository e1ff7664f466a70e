'use strict';
/**
 * Small process and port helpers shared by the cluster's parts: spare loopback ports, waiting for a
 * port or an HTTP answer, starting a server in its own process group with its output in a log file,
 * stopping one and waiting for it.
 */
const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const portIsFree = (port) =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A spare loopback port chosen by the kernel. */
const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** The first of `count` consecutive free ports (Ceph's daemons need a block of them). */
async function freePortRange(count) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    let free = true;
    for (let port = base; port < base + count && free; port++) free = await portIsFree(port);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports`);
}

/** Resolves once something accepts connections on the port; rejects after timeoutMs. */
async function waitForPort(port, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** One GET with a 2 s timeout: its status, or 0 when nothing answered. */
const statusOf = (url) =>
  new Promise((resolve) => {
    const request = http.get(url, { timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(0));
  });

/** Resolves once GET url answers `accept(status)`; rejects after timeoutMs. */
async function waitForHttp(url, timeoutMs, what, accept = (status) => status > 0) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (accept(await statusOf(url))) return;
    if (Date.now() > deadline) throw new Error(`${what} did not answer at ${url} within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/**
 * Starts a long-running server in its own process group (so a Ctrl-C to the terminal reaches only
 * the cluster script, which stops the parts in order), output appended to `log`.
 */
function startProcess(command, args, { log, env, cwd, uid, gid }) {
  const out = fs.openSync(log, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], env: env ?? process.env, cwd, uid, gid });
  fs.closeSync(out);
  child.on('error', () => undefined); // reported by the wait for its port
  return child;
}

const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Signals a process (and its group), then waits up to timeoutMs for it to go; SIGKILL after that. */
async function stopProcess(pid, signal = 'SIGTERM', timeoutMs = 30000) {
  if (!pid || !isAlive(pid)) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}

module.exports = { sleep, freePort, freePortRange, waitForPort, waitForHttp, statusOf, startProcess, stopProcess, isAlive };
