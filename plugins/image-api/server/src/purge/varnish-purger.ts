/**
 * Varnish with the xkey module (varnish-modules), every server told the same, at once:
 *   - by tags: `PURGE /` with `xkey-purge: <tags, space-separated>`; the VCL answers 200 after
 *     `xkey.purge(req.http.xkey-purge)`, which forgets every object indexed under one of them (the
 *     VCL copies an answer's `Surrogate-Key` into the `xkey` header xkey indexes); not
 *     `xkey.softpurge`, which keeps the objects servable as stale (grace), so a deleted image would be.
 *   - by URL: `PURGE <path and query>` with `Host: <host[:port] of the URL>`; the VCL does
 *     `return (purge)`, which forgets every variant cached under that URL's hash.
 * Only the instances may purge (an ACL in the VCL): others get 403. A VCL that answers this is
 * proven against a real varnishd in plugins/image-api/tests/purge/varnish-purger.test.ts; xkey's
 * API (`man vmod_xkey`): https://github.com/varnish/varnish-modules/blob/master/src/vmod_xkey.vcc
 */
import type { Purger, PurgeBatch } from './purger';
import { distinct, purgedUrl, purgeFailure, sendPurgeRequest, type PurgeRequest } from './purge-request';

/**
 * The longest `xkey-purge` header sent: varnishd refuses a request header longer than its
 * `http_req_hdr_len` (8 KiB by default), so more tags than fit go in several requests.
 */
export const VARNISH_XKEY_HEADER_BYTES = 4096;

export interface VarnishPurgerOptions {
  /** Base URLs of the Varnish servers (`http://127.0.0.1:6081`); each is told every purge. */
  servers: string[];
  timeoutMs: number;
}

/** One request, as every server gets it. */
interface VarnishPurge {
  what: string;
  path: string;
  headers: Record<string, string>;
  host?: string;
}

export function createVarnishPurger({ servers, timeoutMs }: VarnishPurgerOptions): Purger {
  const origins = servers.map((server) => new URL(server).origin);

  /** A server's requests one after another; the first failure rejects. */
  async function purgeAt(origin: string, purges: VarnishPurge[]): Promise<void> {
    for (const purge of purges) {
      const request: PurgeRequest = {
        purger: 'varnish',
        what: `${purge.what} at ${origin}`,
        url: `${origin}${purge.path}`,
        method: 'PURGE',
        headers: purge.headers,
        host: purge.host,
        timeoutMs,
        secrets: [],
      };
      const answer = await sendPurgeRequest(request);
      if (answer.status < 200 || answer.status > 299) throw purgeFailure(request, `Varnish answered ${answer.status}`);
    }
  }

  return {
    name: 'varnish',
    async purge(batch: PurgeBatch): Promise<void> {
      const tags = distinct(batch.tags);
      const purges: VarnishPurge[] = [
        ...headerRuns(tags).map((run) => ({ what: `tags ${run.join(' ')}`.slice(0, 200), path: '/', headers: { 'xkey-purge': run.join(' ') } })),
        ...distinct(batch.urls).map((target) => {
          const url = purgedUrl({ purger: 'varnish', secrets: [] }, target);
          return { what: `the URL ${target}`, path: `${url.pathname}${url.search}`, headers: {}, host: url.host };
        }),
      ];
      if (purges.length === 0) return;
      // Every server at once, and every one waited for: a purge is done when all of them forgot.
      const results = await Promise.allSettled(origins.map((origin) => purgeAt(origin, purges)));
      const failures = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failures.length === 1) throw failures[0].reason;
      if (failures.length > 1) {
        throw new Error(`image-api: varnish purge failed at ${failures.length} of ${origins.length} servers: ${failures.map((failure) => (failure.reason as Error).message.replace(/^image-api: /, '')).join('; ')}`);
      }
    },
  };
}

/** Tags in runs whose space-separated header stays within VARNISH_XKEY_HEADER_BYTES (a longer tag alone). */
function headerRuns(tags: string[]): string[][] {
  const runs: string[][] = [];
  let run: string[] = [];
  let bytes = 0;
  for (const tag of tags) {
    if (run.length && bytes + 1 + Buffer.byteLength(tag) > VARNISH_XKEY_HEADER_BYTES) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    bytes += (run.length ? 1 : 0) + Buffer.byteLength(tag);
    run.push(tag);
  }
  if (run.length) runs.push(run);
  return runs;
}
