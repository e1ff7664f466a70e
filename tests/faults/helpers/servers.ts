/**
 * Servers of the fault tests' own, on spare loopback ports (never the machine's shared ones), so a
 * test may stop, hang (SIGSTOP) or kill them: a PostgreSQL cluster made with initdb, and a Redis.
 */
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import net from 'net';
import os from 'os';
import path from 'path';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once something accepts connections on the port. */
export async function waitForPort(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await sleep(100);
  }
}

export interface OwnServer {
  port: number;
  /** SIGSTOP: the server keeps its sockets but answers nothing. */
  hang(): void;
  /** SIGCONT. */
  resume(): void;
  /** Stops it (fast shutdown); start() brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  destroy(): Promise<void>;
}

function exited(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** The PostgreSQL binaries of Debian's package (initdb and postgres are not on PATH). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const version = fs.readdirSync(root).sort().pop();
  if (!version) throw new Error('PostgreSQL is not installed');
  return path.join(root, version, 'bin');
}

/** A PostgreSQL cluster of its own (initdb as the postgres user, trust auth, fsync off). */
export async function startPostgres(): Promise<OwnServer & { database: string; env: Record<string, string> }> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-faults-pg-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  // PostgreSQL refuses to run as root: as root, its processes run as the postgres user (spawned
  // directly, not through su or runuser, which would stop themselves when the server is stopped).
  const user =
    process.getuid?.() === 0
      ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
      : {};
  execFileSync(path.join(postgresBin(), 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', cwd: dir, ...user });
  let child: ChildProcess | null = null;
  const start = async () => {
    const args = [
      '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
      '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=60',
    ];
    child = spawn(path.join(postgresBin(), 'postgres'), args, { stdio: 'ignore', cwd: dir, ...user });
    await waitForPort(port);
    // Accepting connections is not accepting queries yet: wait for a real one.
    const { Client } = await import('pg');
    for (let attempt = 0; ; attempt++) {
      const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      try {
        await client.connect();
        await client.query('select 1');
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (attempt > 100) throw error;
        await sleep(100);
      }
    }
  };
  const pid = () => child?.pid ?? -1;
  /** Every process of the cluster (the postmaster and its backends) stops, or goes on. */
  const signalAll = (signal: 'SIGSTOP' | 'SIGCONT') => {
    if (!child) return;
    process.kill(pid(), signal);
    try {
      execFileSync('pkill', [`-${signal.slice(3)}`, '-P', String(pid())]);
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
  const { Client } = await import('pg');
  const admin = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query('CREATE DATABASE faults');
  await admin.end();
  return {
    port,
    database: 'faults',
    env: {
      DATABASE_CLIENT: 'postgres', DATABASE_HOST: '127.0.0.1', DATABASE_PORT: String(port), DATABASE_NAME: 'faults',
      DATABASE_USERNAME: 'postgres', DATABASE_PASSWORD: '',
    },
    hang: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    stop,
    start,
    async destroy() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis of its own (no persistence). */
export async function startRedis(port?: number): Promise<OwnServer & { url: string }> {
  const chosen = port ?? (await freePort());
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitForPort(chosen);
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
    hang: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    stop,
    start,
    destroy: stop,
  };
}
