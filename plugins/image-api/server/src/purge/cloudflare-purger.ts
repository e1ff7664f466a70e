/**
 * Cloudflare: purge by cache tag (the `Cache-Tag` header every image answer carries) and by file
 * URL (direct files served from the bucket through Cloudflare, which carry no tags), through the
 * "Purge Cached Content" API call:
 *   POST {api}/zones/{zone_id}/purge_cache, `Authorization: Bearer <API token>`,
 *   `Content-Type: application/json`, a body of `{"tags": [...]}` or `{"files": [...]}` (one kind
 *   per request: the documented bodies are alternatives), answered
 *   `{"success": true, "errors": [], "messages": [], "result": {"id": "..."}}`.
 * https://developers.cloudflare.com/api/resources/cache/methods/purge/
 * https://developers.cloudflare.com/cache/how-to/purge-cache/ (limits)
 * https://developers.cloudflare.com/cache/how-to/purge-cache/purge-by-tags/
 * https://developers.cloudflare.com/cache/how-to/purge-cache/purge-by-single-file/
 */
import type { Purger, PurgeBatch } from './purger';
import { answerJson, chunks, distinct, purgeFailure, sendPurgeRequest, type PurgeAnswer, type PurgeRequest } from './purge-request';

/**
 * Tags and files per request. The limits page says up to 100 operations a request on every plan
 * (500 files on Enterprise); the API reference said 30 tags and 30 URLs a call until that page
 * replaced it. 30 is within both, so a zone whose limit is still the older one purges too; a purge
 * names one image's tags and files, so the extra requests are rare.
 */
export const CLOUDFLARE_TAGS_PER_REQUEST = 30;
export const CLOUDFLARE_FILES_PER_REQUEST = 30;

export interface CloudflarePurgerOptions {
  /** The zone's ID (the dashboard's Overview page, "Zone ID"). */
  zone: string;
  /** An API token with the zone's "Cache Purge" permission. */
  token: string;
  /** The API's base URL: `https://api.cloudflare.com/client/v4`. */
  api: string;
  timeoutMs: number;
}

export function createCloudflarePurger({ zone, token, api, timeoutMs }: CloudflarePurgerOptions): Purger {
  const url = `${api.replace(/\/+$/, '')}/zones/${encodeURIComponent(zone)}/purge_cache`;

  async function send(kind: 'tags' | 'files', items: string[], what: string): Promise<void> {
    const request: PurgeRequest = {
      purger: 'cloudflare',
      what,
      url,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ [kind]: items }),
      timeoutMs,
      secrets: [token],
    };
    const answer = await sendPurgeRequest(request);
    const json = answerJson(answer) as { success?: unknown } | undefined;
    if (answer.status < 200 || answer.status > 299) throw purgeFailure(request, `Cloudflare answered ${answer.status}${errorsOf(answer)}`);
    if (json?.success !== true) throw purgeFailure(request, `Cloudflare answered ${answer.status} without success${errorsOf(answer)}`);
  }

  return {
    name: 'cloudflare',
    async purge(batch: PurgeBatch): Promise<void> {
      const tags = distinct(batch.tags);
      const files = distinct(batch.urls);
      // One after another: Cloudflare's purge rate limit is per account, a few requests a second at most.
      for (const [index, run] of chunks(tags, CLOUDFLARE_TAGS_PER_REQUEST).entries()) {
        await send('tags', run, span('tags', index, CLOUDFLARE_TAGS_PER_REQUEST, run.length, tags.length));
      }
      for (const [index, run] of chunks(files, CLOUDFLARE_FILES_PER_REQUEST).entries()) {
        await send('files', run, span('files', index, CLOUDFLARE_FILES_PER_REQUEST, run.length, files.length));
      }
    },
  };
}

/** "tags 31-60 of 70" */
function span(kind: string, index: number, size: number, length: number, total: number): string {
  return `${kind} ${index * size + 1}-${index * size + length} of ${total}`;
}

/** Cloudflare's own words for a failure: ` (10000 Authentication error; ...)`, or nothing. */
function errorsOf(answer: PurgeAnswer): string {
  const reported = (answerJson(answer) as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(reported) || reported.length === 0) return '';
  const said = reported.map((error: { code?: unknown; message?: unknown }) => [error?.code, error?.message].filter((part) => part !== undefined).join(' '));
  return ` (${said.join('; ').slice(0, 300)})`;
}
