'use strict';
/**
 * The app in a process of its own on a spare loopback port: a second instance for a test, the app a
 * fault test stops, kills and starts again, the server a benchmark loads. It runs `entry`
 * (app-main.js unless given: the compiled app with the environment it is given) and is ready when
 * `ready(output)` finds what it waits for in the process's stdout (app-main.js prints READY).
 */
const { spawn } = require('child_process');
const path = require('path');
const { APP_DIR } = require('./paths');
const { freePort } = require('../servers/ports');
const { ALLOCATOR_ENV } = require('./allocator-env');

const APP_MAIN = path.join(__dirname, 'app-main.js');

/**
 * @param {object} options
 * @param {Record<string, string | undefined>} [options.env] over the caller's environment; PUBLIC_URL follows the port unless set
 * @param {string} [options.entry] the script to run
 * @param {string[]} [options.nodeFlags] for node (profiling, GC traces)
 * @param {boolean} [options.ipc] opens a channel for `send()`
 * @param {(output: string) => any} [options.ready] what it waits for in the output since this start: a truthy value, handed back by start()
 * @param {number} [options.startTimeoutMs]
 * @param {(chunk: Buffer) => void} [options.onStdout] sees every chunk of stdout (a bench writes it to a log)
 * @param {boolean} [options.inheritStderr] stderr to the caller's, not into output()
 */
async function startAppProcess({
  env = {},
  entry = APP_MAIN,
  nodeFlags = [],
  ipc = false,
  ready = (output) => output.includes('READY'),
  startTimeoutMs = 90000,
  onStdout = () => undefined,
  inheritStderr = false,
} = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  let child = null;

  /** Starts it (again: same port), with extra environment; resolves with what `ready` found. */
  const start = (extraEnv = {}) =>
    new Promise((resolve, reject) => {
      const started = spawn(process.execPath, [...nodeFlags, entry], {
        cwd: APP_DIR,
        env: { ...process.env, ...ALLOCATOR_ENV, PUBLIC_URL: url, ...env, ...extraEnv, HOST: '127.0.0.1', PORT: String(port) },
        stdio: ['ignore', 'pipe', inheritStderr ? 'inherit' : 'pipe', ...(ipc ? ['ipc'] : [])],
      });
      child = started;
      let found = null;
      const from = output.length; // this start's output, not an earlier one's
      const timer = setTimeout(() => reject(new Error(`the app did not start in ${startTimeoutMs / 1000} s:\n${output}`)), startTimeoutMs);
      started.stdout.on('data', (chunk) => {
        output += chunk;
        onStdout(chunk);
        if (!found) found = ready(output.slice(from));
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      started.stderr?.on('data', (chunk) => (output += chunk));
      started.once('exit', (code) => {
        if (!found) {
          clearTimeout(timer);
          reject(new Error(`the app exited with ${code} before it was ready:\n${output}`));
        }
      });
    });

  /** Signals it and resolves with its exit code once it is gone. */
  const exit = (signal) =>
    new Promise((resolve) => {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve(running?.exitCode ?? null);
      running.once('exit', (code) => resolve(code));
      running.kill(signal);
    });

  const found = await start();
  return {
    url,
    port,
    /** What `ready` found at the first start. */
    found,
    /** Everything the process printed (stdout, and stderr unless inherited), across restarts. */
    output: () => output,
    pid: () => child?.pid ?? -1,
    /** SIGTERM; resolves with the exit code once the process is gone. */
    stop: () => exit('SIGTERM'),
    /** SIGKILL: no cleanup, no shutdown hooks, as in a crash. */
    kill: async () => {
      await exit('SIGKILL');
    },
    restart: (extraEnv) => start(extraEnv),
    /** Sends an IPC message and resolves with the next one back (rejects on `{ type: 'error' }`). */
    send: (message) =>
      new Promise((resolve, reject) => {
        child.once('message', (reply) => (reply.type === 'error' ? reject(new Error(reply.message)) : resolve(reply)));
        child.send(message);
      }),
  };
}

module.exports = { startAppProcess };
