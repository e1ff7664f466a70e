/**
 * Fastly, by its purge API (https://www.fastly.com/documentation/reference/api/purging/):
 * - tags: `POST {api}/service/{service}/purge` with `Fastly-Key: <token>` and the JSON body
 *   `{"surrogate_keys": [...]}` ("Purge multiple surrogate key tags", up to 256 a request), answered
 *   with each key's purge id;
 * - a bucket's file served through the service: `POST {api}/purge/{host and path}` with
 *   `Fastly-Key` ("Purge a URL"), answered `{"status": "ok", "id": ...}`.
 * Acknowledged when each answer is 2xx.
 */
import type { Purger } from './purger';
import { purgeRequest, slices } from './purge-request';

/** "Up to 256 surrogate keys can be purged in one batch request." */
export const FASTLY_KEYS_PER_REQUEST = 256;

export function createFastlyPurger({ service, token, api, timeoutMs }: { service: string; token: string; api: string; timeoutMs: number }): Purger {
  const base = api.replace(/\/+$/, '');
  const headers = { 'Fastly-Key': token, Accept: 'application/json' };
  return {
    name: 'fastly',
    async purge({ tags, urls }) {
      for (const slice of slices(tags, FASTLY_KEYS_PER_REQUEST)) {
        await purgeRequest(
          'fastly',
          `${base}/service/${encodeURIComponent(service)}/purge`,
          { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ surrogate_keys: slice }) },
          timeoutMs
        );
      }
      for (const url of urls) {
        // The cached URL without its scheme, as the API's path takes it.
        const { host, pathname, search } = new URL(url);
        await purgeRequest('fastly', `${base}/purge/${host}${pathname}${search}`, { method: 'POST', headers }, timeoutMs);
      }
    },
  };
}
