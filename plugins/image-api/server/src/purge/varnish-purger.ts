/**
 * Varnish servers running the xkey module (varnish-modules; https://github.com/varnish/varnish-modules,
 * docs/vmod_xkey.rst), each told directly:
 * - by tags: `PURGE /` with `xkey-purge: <tags, space-separated>`, which a VCL hands to
 *   `xkey.purge()` (objects are tagged from the answers' `Surrogate-Key`);
 * - by URL (a bucket's file behind the same Varnish): `PURGE <path>` with the URL's `Host`, which a
 *   VCL answers with `return (purge)`, Varnish's own purge of that object and its variants
 *   (https://varnish-cache.org/docs/7.1/users-guide/purging.html).
 * docs/deployment.md ("Caching images") and tools/cluster/varnish.js give the VCL. Every server must
 * acknowledge (2xx); the servers are told at once.
 */
import type { Purger } from './purger';
import { purgeRequest, slices } from './purge-request';

/** Tags per request: a header of a few KB at most (Varnish's default http_req_hdr_len is 8 KB). */
const TAGS_PER_REQUEST = 100;

export function createVarnishPurger({ servers, timeoutMs }: { servers: string[]; timeoutMs: number }): Purger {
  const purgeOne = async (server: string, { tags, urls }: { tags: string[]; urls: string[] }) => {
    for (const slice of slices(tags, TAGS_PER_REQUEST)) {
      await purgeRequest('varnish', new URL('/', server).href, { method: 'PURGE', headers: { 'xkey-purge': slice.join(' ') } }, timeoutMs);
    }
    for (const url of urls) {
      const { host, pathname, search } = new URL(url);
      await purgeRequest('varnish', new URL(`${pathname}${search}`, server).href, { method: 'PURGE', headers: { Host: host } }, timeoutMs);
    }
  };
  return {
    name: 'varnish',
    async purge(batch) {
      if (batch.tags.length === 0 && batch.urls.length === 0) return;
      const outcomes = await Promise.allSettled(servers.map((server) => purgeOne(server, batch)));
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
