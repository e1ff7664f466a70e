/**
 * Cloudflare, by its API's purge of a zone's cache
 * (https://developers.cloudflare.com/api/resources/cache/methods/purge/,
 * https://developers.cloudflare.com/cache/how-to/purge-cache/):
 * `POST {api}/zones/{zone}/purge_cache` with `Authorization: Bearer <token>` (a token with the
 * zone's Cache Purge permission) and a JSON body of one kind: `{"tags": [...]}` (the answers'
 * `Cache-Tag`), or `{"files": [...]}` (URLs of a bucket's files served through the zone). At most 100
 * operations a request, on every plan. Acknowledged when the answer is 2xx and says `"success": true`.
 */
import type { Purger } from './purger';
import { purgeRequest, slices } from './purge-request';

/** "Max operations per request: 100" (all plans). */
export const CLOUDFLARE_PER_REQUEST = 100;

export function createCloudflarePurger({ zone, token, api, timeoutMs }: { zone: string; token: string; api: string; timeoutMs: number }): Purger {
  const endpoint = `${api.replace(/\/+$/, '')}/zones/${encodeURIComponent(zone)}/purge_cache`;
  const send = async (body: { tags: string[] } | { files: string[] }) => {
    const { text } = await purgeRequest(
      'cloudflare',
      endpoint,
      { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
      timeoutMs
    );
    let answer: { success?: unknown; errors?: Array<{ code?: number; message?: string }> } | null = null;
    try {
      answer = JSON.parse(text);
    } catch {
      // Not JSON: not Cloudflare's acknowledgement either.
    }
    if (answer?.success !== true) {
      const errors = (answer?.errors ?? []).map((error) => `${error.code ?? '?'} ${error.message ?? ''}`.trim()).join('; ');
      throw new Error(`cloudflare: POST purge_cache was not acknowledged${errors ? `: ${errors}` : ''}`);
    }
  };
  return {
    name: 'cloudflare',
    async purge({ tags, urls }) {
      for (const slice of slices(tags, CLOUDFLARE_PER_REQUEST)) await send({ tags: slice });
      for (const slice of slices(urls, CLOUDFLARE_PER_REQUEST)) await send({ files: slice });
    },
  };
}
