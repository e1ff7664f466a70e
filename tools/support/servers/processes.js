'use strict';
/**
 * Servers in processes of their own: started in their own process group with their output in a
 * log file, signalled, stopped and waited for (ports.js finds them a port).
 */
const { spawn } = require('child_process');
const fs = require('fs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Resolves once the child process has exited (at once if it has). */
function exited(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
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

module.exports = { sleep, startProcess, stopProcess, exited, isAlive };
