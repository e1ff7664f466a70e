/** Clients of the fault tests: uploads with a timeout, answers as the client saw them, and the leftovers check. */
import fs from 'fs';
import knex, { type Knex } from 'knex';
import { rssMb } from '../../../tools/support/servers/process-stats';

// One HTTP client for tests, benchmarks and the cluster (tools/support/http/http-client.js).
export { tally, uploadFile, type Answer } from '../../../tools/support/http/http-client';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A connection to the app's database, for the leftovers check. */
export const openDb = (env: Record<string, string>): Knex =>
  knex({
    client: 'pg',
    connection: { host: env.DATABASE_HOST, port: Number(env.DATABASE_PORT), user: env.DATABASE_USERNAME, database: env.DATABASE_NAME },
    pool: { min: 0, max: 2 },
  });

export interface Leftovers {
  images: number;
  /** Files in the uploads folder that no image record names. */
  filesWithoutRows: string[];
  /** Image records missing any of their three files. */
  rowsWithoutFiles: string[];
  /** `files` rows without an image record, and the reverse. */
  fileRowsWithoutImage: number;
  imagesWithoutFileRow: number;
  journalRows: number;
  /** Kept transformation results whose file is missing. */
  renditionsWithoutFiles: string[];
  /** Per-request temp folders left. */
  tempFolders: string[];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the store holds beyond complete images: nothing, when every upload was complete or absent. */
export async function leftovers(db: Knex, uploadsDir: string, tmpDir: string): Promise<Leftovers> {
  const names: string[] = (await db('image_api_images').select('name')).map((row: { name: string }) => row.name);
  const known = new Set(names);
  // Kept transformation results are files of their own, named by their rows.
  const kept: string[] = (await db('image_api_renditions').select('hash', 'ext')).map((row: { hash: string; ext: string }) => `${row.hash}${row.ext}`);
  const keptFiles = new Set(kept);
  const files = fs.readdirSync(uploadsDir).filter((file) => file !== 'lost+found');
  const owner = (file: string) => file.replace(/(\.(th|md))?\.[a-z]+$/, '');
  const count = async (query: Knex.QueryBuilder) => Number(((await query.count({ n: '*' })) as Array<{ n: unknown }>)[0].n);
  return {
    images: names.length,
    filesWithoutRows: files.filter((file) => !known.has(owner(file)) && !keptFiles.has(file)),
    rowsWithoutFiles: names.filter((name) =>
      ['', '.th', '.md'].some((suffix) => !files.some((file) => new RegExp(`^${escape(name + suffix)}\\.[a-z]+$`).test(file)))
    ),
    fileRowsWithoutImage: await count(db('files').whereNotIn('hash', db('image_api_images').select('name'))),
    imagesWithoutFileRow: await count(db('image_api_images').whereNotIn('name', db('files').select('hash'))),
    journalRows: await count(db('image_api_pending_uploads')),
    renditionsWithoutFiles: kept.filter((file) => !files.includes(file)),
    tempFolders: fs.existsSync(tmpDir) ? fs.readdirSync(tmpDir) : [],
  };
}

/** Leftovers of a store where every upload was complete or absent. */
export const CLEAN = { filesWithoutRows: [], rowsWithoutFiles: [], fileRowsWithoutImage: 0, imagesWithoutFileRow: 0, journalRows: 0, renditionsWithoutFiles: [], tempFolders: [] };

// Memory readings of /proc, as the benches take them (tools/support/servers/process-stats.js): rssMb(pid), and
// sampleRss(pid), whose returned function stops sampling and gives the peak, MB; threadCpuMs(pid), the
// CPU time its threads have used so far.
export { rssMb, sampleRss, threadCpuMs } from '../../../tools/support/servers/process-stats';

/**
 * Reads a process's RSS every 250 ms, doing nothing else, until it is at most `targetMb` or `withinMs`
 * have passed: what an idle server gives back on its own after a load. Returns the last reading and
 * when it came.
 */
export async function settledRss(pid: number, targetMb: number, withinMs: number): Promise<{ mb: number; ms: number }> {
  const started = Date.now();
  let mb = rssMb(pid);
  while (mb > targetMb && Date.now() - started < withinMs) {
    await sleep(250);
    mb = rssMb(pid);
  }
  return { mb, ms: Date.now() - started };
}

/**
 * Asks `${url}/_health` every 100 ms, one request at a time, until stopped; returns the slowest
 * answer (ms) and the statuses seen. What an attack costs everyone else shows here.
 */
export function watchHealth(url: string) {
  let running = true;
  let slowest = 0;
  const statuses = new Set<number>();
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await fetch(`${url}/_health`, { signal: AbortSignal.timeout(30_000) });
        statuses.add(res.status);
      } catch {
        statuses.add(0);
      }
      slowest = Math.max(slowest, Date.now() - started);
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { slowestMs: slowest, statuses: [...statuses] };
    },
  };
}

/** The status and JSON body of an HTTP/1.1 answer read off a raw socket (status 0: none came). */
export function rawAnswer(received: string): { status: number; body: any } {
  const [head, body = ''] = received.split('\r\n\r\n');
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    // no body, or not JSON
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: parsed };
}
