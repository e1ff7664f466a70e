'use strict';
/**
 * A PostgreSQL server of its own (Debian's binaries, initdb, trust auth on loopback, a spare port),
 * so a test or the cluster never touches the machine's shared database and may stop, hang (SIGSTOP)
 * or kill it. As root its processes run as `postgres` (PostgreSQL refuses root), spawned directly,
 * not through su or runuser, which would stop themselves when the server is stopped.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { freePort, waitForPort } = require('./ports');
const { exited, sleep, startProcess } = require('./processes');

/** The binaries of Debian's package (initdb and postgres are not on PATH); null when not installed. */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().pop() : undefined;
  return version ? path.join(root, version, 'bin') : null;
}

/** Runs `query` once the server accepts queries (accepting connections comes first). */
async function whenQueriesWork(port, query, what) {
  const { Client } = require('pg');
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query(query);
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt > 150) throw new Error(`${what} did not start: ${error.message}`);
      await sleep(200);
    }
  }
}

/**
 * Starts the server and creates `database` in it. `dir` (a new temp folder unless given) holds the
 * data, the socket and `postgres.log`; `durable: false` turns fsync and its kin off (tests: faster,
 * and a crash loses nothing they need). `onSpawn(pid)` hears the pid before the server is ready.
 */
async function startPostgres({ dir, database = 'image_api', maxConnections = 60, durable = false, onSpawn = () => undefined } = {}) {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian package postgresql)');
  const port = await freePort();
  const home = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-pg-'));
  fs.mkdirSync(home, { recursive: true });
  fs.chmodSync(home, 0o777);
  const data = path.join(home, 'data');
  const log = path.join(home, 'postgres.log');
  const user =
    process.getuid?.() === 0
      ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
      : {};
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', cwd: home, ...user });

  let child = null;
  const start = async () => {
    const args = ['-D', data, '-p', String(port), '-k', home, '-c', 'listen_addresses=127.0.0.1', '-c', `max_connections=${maxConnections}`];
    if (!durable) args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
    child = startProcess(path.join(bin, 'postgres'), args, { log, cwd: home, ...user });
    onSpawn(child.pid);
    await waitForPort(port, 30000, `PostgreSQL (log: ${log})`);
    await whenQueriesWork(port, 'select 1', `PostgreSQL (log: ${log})`);
  };
  /** Every process of the server (the postmaster and its backends) stops, or goes on. */
  const signalAll = (signal) => {
    if (!child) return;
    process.kill(child.pid, signal);
    try {
      execFileSync('pkill', [`-${signal.slice(3)}`, '-P', String(child.pid)]);
    } catch {
      // no backend at the moment
    }
  };
  const stop = async () => {
    if (!child) return;
    signalAll('SIGCONT');
    child.kill('SIGINT'); // fast shutdown: active transactions are rolled back, connections closed
    await exited(child);
    child = null;
  };

  await start();
  await whenQueriesWork(port, `CREATE DATABASE ${database}`, 'PostgreSQL');
  return {
    port,
    database,
    /** The postmaster's pid (-1 when stopped). */
    pid: () => child?.pid ?? -1,
    /** The app's variables for this database. */
    env: {
      DATABASE_CLIENT: 'postgres',
      DATABASE_HOST: '127.0.0.1',
      DATABASE_PORT: String(port),
      DATABASE_NAME: database,
      DATABASE_USERNAME: 'postgres',
      DATABASE_PASSWORD: '',
    },
    /** SIGSTOP: the server keeps its sockets but answers nothing. */
    hang: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    /** Stops it (fast shutdown); start() brings it back on the same port and data. */
    stop,
    start,
    /** Stops it for good and removes its folder. */
    async destroy() {
      await stop();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

module.exports = { postgresBin, startPostgres };
