'use strict';
/**
 * A PostgreSQL server of the cluster's own (Debian's binaries, initdb, trust auth on loopback), so
 * the cluster never touches the machine's shared database. As root its processes run as `postgres`.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { ensurePackages } = require('./debian-packages');
const { freePort, sleep, startProcess } = require('./processes');

function postgresBin() {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().pop() : undefined;
  return version ? path.join(root, version, 'bin') : null;
}

/** Resolves with the connection settings and the postmaster's pid once it accepts queries. */
async function startPostgres(dir, log, { maxConnections, onStart = () => undefined }) {
  if (!postgresBin()) ensurePackages(['psql'], ['postgresql'], log);
  const bin = postgresBin();
  const port = await freePort();
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const user = asRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {};
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', cwd: dir, ...user });
  const child = startProcess(
    path.join(bin, 'postgres'),
    ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', `max_connections=${maxConnections}`],
    { log: path.join(dir, 'postgres.log'), cwd: dir, ...user }
  );
  onStart('postgres', child.pid);
  const { Client } = require('pg');
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('CREATE DATABASE image_api');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt > 150) throw new Error(`PostgreSQL did not start: ${error.message} (log: ${dir}/postgres.log)`);
      await sleep(200);
    }
  }
  return {
    pid: child.pid,
    port,
    env: {
      DATABASE_CLIENT: 'postgres',
      DATABASE_HOST: '127.0.0.1',
      DATABASE_PORT: String(port),
      DATABASE_NAME: 'image_api',
      DATABASE_USERNAME: 'postgres',
      DATABASE_PASSWORD: '',
    },
  };
}

module.exports = { startPostgres };
