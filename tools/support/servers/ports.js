'use strict';
/**
 * Loopback ports for the servers tests, benchmarks and the cluster start of their own: a spare one,
 * a block of them, and waiting until something listens or answers there.
 */
const http = require('http');
const net = require('net');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const portIsFree = (port) =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A spare loopback port chosen by the kernel. @returns {Promise<number>} */
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
async function waitForPort(port, timeoutMs = 30000, what = 'a server') {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${timeoutMs / 1000} s`);
    await sleep(100);
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

module.exports = { freePort, freePortRange, waitForPort, statusOf, waitForHttp };
