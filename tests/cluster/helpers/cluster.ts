/**
 * The cluster under test, started by the same script an operator runs (`npm run cluster`), and the
 * clients the tests use against it: HTTP from a chosen loopback source address (each address is a
 * different client to Varnish), the bucket through the S3 API, the database, the key CLI.
 */
import { execFile, spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { promisify } from 'util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import knex, { type Knex } from 'knex';
import { request as httpRequest, uploadFile as upload } from '../../../tools/support/http/http-client';
import { startInstance, waitUntilHealthy, type Instance } from '../../../tools/cluster/instances';

const APP_DIR = path.join(__dirname, '..', '..', '..');

export interface ClusterState {
  pid: number;
  dir: string;
  /** Varnish's front: the balancer and cache. */
  url: string;
  /** Varnish's access log (tools/cluster/varnish.js). */
  accessLog: string;
  key: string;
  instances: Array<{ index: number; port: number; pid: number; url: string; log: string }>;
  pids: Record<string, number>;
  database: Record<string, string> & { port: number };
  redis: { url: string };
  /** `baseUrl`: the bucket through Varnish's bucket listener, its CDN (S3_BASE_URL). */
  s3: { endpoint: string; bucket: string; baseUrl: string; accessKeyId: string; secretAccessKey: string };
  /** Prometheus scraping every instance (tools/cluster/prometheus.js). */
  prometheus: { url: string };
  environment: Record<string, string>;
}

export interface Cluster {
  state: ClusterState;
  /**
   * One more instance on the cluster's database, Redis and bucket, outside the balancer, with
   * `env` over the cluster's: ready when it resolves. Stopped with the cluster (its pid is its).
   */
  startExtraInstance(index: number, env: Record<string, string>): Promise<Instance>;
  output(): string;
  /** Stops it as Ctrl-C would; resolves with the script's exit code. */
  stop(): Promise<number | null>;
}

/** `npm run cluster -- --instances N --dir <scratch>`, with extra environment for the instances. */
export async function startCluster(instances: number, env: Record<string, string>): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-cluster-'));
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(APP_DIR, 'tools', 'cluster', 'cluster.js'), '--instances', String(instances), '--dir', dir], {
    cwd: APP_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the cluster did not start in 10 minutes:\n${output}`)), 600_000);
    const poll = setInterval(() => {
      if (output.includes('READY')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }
    }, 200);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the cluster script exited with ${code}:\n${output}`));
    });
  });
  const state: ClusterState = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
  const extras: Instance[] = [];
  return {
    state,
    async startExtraInstance(index, extraEnv) {
      const instance = await startInstance(state.dir, index, state.environment, { ...env, ...extraEnv });
      extras.push(instance);
      await waitUntilHealthy(instance);
      return instance;
    },
    output: () => output,
    async stop() {
      for (const extra of extras) {
        try {
          process.kill(extra.pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

// Requests from a chosen loopback source address, as tests and benchmarks send them (tools/support).
export { request, type Answer } from '../../../tools/support/http/http-client';
export { multipart } from '../../../tools/support/http/multipart';

/** An upload of a PNG through `url` (the balancer or an instance), the key in a form field as ShareX sends it. */
export const uploadFile = (url: string, key: string, bytes: Buffer, options: { from?: string; headers?: Record<string, string>; name?: string } = {}) =>
  upload(url, key, bytes, { keyIn: 'field', name: 'photo.png', type: 'image/png', timeoutMs: 60_000, ...options });

/** Every object key in the bucket. */
export async function bucketKeys(state: ClusterState): Promise<string[]> {
  const client = new S3Client({
    endpoint: state.s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: state.s3.accessKeyId, secretAccessKey: state.s3.secretAccessKey },
  });
  const keys: string[] = [];
  let token: string | undefined;
  try {
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: state.s3.bucket, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  } finally {
    client.destroy();
  }
  return keys.sort();
}

export const openDatabase = (state: ClusterState): Knex =>
  knex({
    client: 'pg',
    connection: { host: '127.0.0.1', port: Number(state.database.port), user: 'postgres', database: state.database.DATABASE_NAME },
    pool: { min: 0, max: 2 },
  });

/** The key CLI (`npm run apikey -- keys ...`), run with the instances' environment as an operator would. */
export async function apikey(state: ClusterState, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(APP_DIR, 'scripts', 'apikey.js'), 'keys', ...args], {
    cwd: APP_DIR,
    env: { ...process.env, ...state.environment, LOG_LEVEL: 'error' },
    timeout: 120_000,
  });
  return stdout.trim().split('\n').pop()!;
}

const accessLog = (state: ClusterState) => fs.readFileSync(state.accessLog, 'utf8').split('\n').filter(Boolean);

/** How many requests Varnish has logged so far (to look only at later ones with servedBy). */
export const loggedRequests = (state: ClusterState) => accessLog(state).length;

/**
 * How many requests whose log line matches `pattern` each instance served (by its backend name,
 * `-` when the cache answered alone), from Varnish's access log, skipping the first `skip` lines.
 */
export function servedBy(state: ClusterState, pattern: RegExp, skip = 0): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of accessLog(state).slice(skip)) {
    if (!pattern.test(line)) continue;
    const upstream = line.trim().split(' ').at(-2)!;
    counts.set(upstream, (counts.get(upstream) ?? 0) + 1);
  }
  return counts;
}

/**
 * servedBy once Varnish has logged `expected` matching requests (it writes a request's line after the
 * answer has gone, so a client can hold every answer before the last lines are written), or after
 * `timeoutMs` whatever it has.
 */
export async function servedByAll(state: ClusterState, pattern: RegExp, skip: number, expected: number, timeoutMs = 5000): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = servedBy(state, pattern, skip);
    if ([...counts.values()].reduce((a, b) => a + b, 0) >= expected || Date.now() > deadline) return counts;
    await sleep(50);
  }
}

/** An instant query through Prometheus' HTTP API: each series' labels and value. */
export async function promQuery(state: ClusterState, query: string): Promise<Array<{ metric: Record<string, string>; value: number }>> {
  const answer = await httpRequest(`${state.prometheus.url}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = answer.json;
  if (body?.status !== 'success') throw new Error(`Prometheus answered ${answer.status}: ${answer.text}`);
  return body.data.result.map((series: { metric: Record<string, string>; value: [number, string] }) => ({ metric: series.metric, value: Number(series.value[1]) }));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
