/**
 * Fastly: purge by surrogate key (the `Surrogate-Key` header every image answer carries) and by URL
 * (direct files served from the bucket through Fastly, which carry no keys), with the API token in
 * `Fastly-Key` on every request:
 *   - "Purge multiple surrogate key tags": POST {api}/service/{service_id}/purge with
 *     `Content-Type: application/json` and `{"surrogate_keys": [...]}`, up to 256 keys a request,
 *     answered with a map of each key to its purge ID.
 *   - "Purge a URL": POST {api}/purge/{cached_url}, the URL without its scheme
 *     (`www.example.com/path/to/object`), answered `{"status": "ok", "id": "..."}`.
 * No `Fastly-Soft-Purge` header: a soft purge leaves the object servable as stale, and a deleted
 * image must not be served at all.
 * https://www.fastly.com/documentation/reference/api/purging/
 * https://www.fastly.com/documentation/guides/full-site-delivery/purging/purging-with-surrogate-keys/
 * https://www.fastly.com/documentation/guides/full-site-delivery/purging/purging-a-url/
 */
import type { Purger, PurgeBatch } from './purger';
import { answerJson, chunks, distinct, purgedUrl, purgeFailure, sendPurgeRequest, type PurgeAnswer, type PurgeRequest } from './purge-request';

/** "Up to 256 surrogate keys can be purged in one batch request." */
export const FASTLY_KEYS_PER_REQUEST = 256;

export interface FastlyPurgerOptions {
  /** The service's ID. */
  service: string;
  /** An API token with the `purge_select` scope. */
  token: string;
  /** The API's base URL: `https://api.fastly.com`. */
  api: string;
  timeoutMs: number;
}

export function createFastlyPurger({ service, token, api, timeoutMs }: FastlyPurgerOptions): Purger {
  const base = api.replace(/\/+$/, '');

  const request = (what: string, url: string, extra: Partial<PurgeRequest> = {}): PurgeRequest => ({
    purger: 'fastly',
    what,
    url,
    method: 'POST',
    headers: { 'fastly-key': token, accept: 'application/json', ...extra.headers },
    body: extra.body,
    timeoutMs,
    secrets: [token],
  });

  async function purgeKeys(keys: string[], what: string): Promise<void> {
    const sent = request(what, `${base}/service/${encodeURIComponent(service)}/purge`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ surrogate_keys: keys }),
    });
    const answer = await sendPurgeRequest(sent);
    if (answer.status < 200 || answer.status > 299) throw purgeFailure(sent, `Fastly answered ${answer.status}${messageOf(answer)}`);
    const ids = answerJson(answer);
    if (typeof ids !== 'object' || ids === null || Array.isArray(ids)) throw purgeFailure(sent, `Fastly answered ${answer.status} without the keys' purge IDs`);
  }

  async function purgeUrl(target: string): Promise<void> {
    const parsed = purgedUrl({ purger: 'fastly', secrets: [token] }, target);
    // The cached URL as the API's example spells it: host, path and query, no scheme.
    const sent = request(`the URL ${target}`, `${base}/purge/${parsed.host}${parsed.pathname}${parsed.search}`);
    const answer = await sendPurgeRequest(sent);
    if (answer.status < 200 || answer.status > 299) throw purgeFailure(sent, `Fastly answered ${answer.status}${messageOf(answer)}`);
    const status = (answerJson(answer) as { status?: unknown } | undefined)?.status;
    if (status !== 'ok') throw purgeFailure(sent, `Fastly answered ${answer.status} with status ${JSON.stringify(status ?? null)}${messageOf(answer)}`);
  }

  return {
    name: 'fastly',
    async purge(batch: PurgeBatch): Promise<void> {
      const keys = distinct(batch.tags);
      const urls = distinct(batch.urls);
      for (const [index, run] of chunks(keys, FASTLY_KEYS_PER_REQUEST).entries()) {
        const first = index * FASTLY_KEYS_PER_REQUEST + 1;
        await purgeKeys(run, `keys ${first}-${first + run.length - 1} of ${keys.length}`);
      }
      for (const url of urls) await purgeUrl(url);
    },
  };
}

/** Fastly's own words for a failure (`{"msg": "...", "detail": "..."}`): ` (msg: detail)`, or nothing. */
function messageOf(answer: PurgeAnswer): string {
  const json = answerJson(answer) as { msg?: unknown; detail?: unknown } | undefined;
  const said = [json?.msg, json?.detail].filter((part): part is string => typeof part === 'string' && part !== '');
  return said.length ? ` (${said.join(': ').slice(0, 300)})` : '';
}
