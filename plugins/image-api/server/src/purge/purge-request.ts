/**
 * One request of a purger to its cache or CDN (purger.ts): bounded by `timeoutMs` from the first
 * byte sent to the last byte of the answer read, the answer's body kept up to 64 KiB, redirects
 * never followed (a purge API that redirects is misconfigured, and Fastly's key header would follow
 * a redirect anywhere). A refusal, a network error or a timeout becomes an Error naming the purger
 * and what failed, with every secret (the API token) cut out of the message.
 */
import http from 'http';
import https from 'https';
import type { PurgerName } from './purger';

/** Enough of any purge API's answer to read its status and error message. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface PurgeRequest {
  purger: PurgerName;
  /** What the request asks, as the error message names it: "tags 1-30 of 70", "the URL https://...". */
  what: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * A Host header other than the URL's (a Varnish URL purge names the purged URL's host). fetch()
   * cannot send one (undici sets Host from the URL whatever the headers say), so such a request
   * goes out through node:http, under the same timeout.
   */
  host?: string;
  timeoutMs: number;
  /** Strings never to appear in an error message: the API token. */
  secrets: string[];
}

export interface PurgeAnswer {
  status: number;
  /** The body as text, its first 64 KiB. */
  body: string;
}

/** The request's answer, whatever its status; rejects (purgeFailure) on a network error or a timeout. */
export async function sendPurgeRequest(request: PurgeRequest): Promise<PurgeAnswer> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    return request.host === undefined ? await viaFetch(request, signal) : await viaHttp(request, signal);
  } catch (error) {
    if (signal.aborted) throw purgeFailure(request, `no answer within ${request.timeoutMs} ms`);
    throw purgeFailure(request, `the request failed (${networkReason(error)})`);
  }
}

/** The Error a purger rejects with: "image-api: <purger> purge of <what> failed: <reason>", secrets cut out. */
export function purgeFailure(request: Pick<PurgeRequest, 'purger' | 'what' | 'secrets'>, reason: string): Error {
  let message = `image-api: ${request.purger} purge of ${request.what} failed: ${reason}`;
  for (const secret of request.secrets) if (secret) message = message.split(secret).join('[token]');
  return new Error(message);
}

/** An answer's body as JSON, or undefined when it is not JSON (an HTML error page, a cut body). */
export function answerJson(answer: PurgeAnswer): unknown {
  try {
    return JSON.parse(answer.body);
  } catch {
    return undefined;
  }
}

/** `target` parsed, or the purger's Error saying it is no absolute URL (a purge names files by URL). */
export function purgedUrl(request: Pick<PurgeRequest, 'purger' | 'secrets'>, target: string): URL {
  try {
    return new URL(target);
  } catch {
    throw purgeFailure({ ...request, what: `the URL ${JSON.stringify(target)}` }, 'not an absolute URL');
  }
}

/** `items` in runs of at most `size`, for a provider's limit per request. */
export function chunks<T>(items: T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let start = 0; start < items.length; start += size) runs.push(items.slice(start, start + size));
  return runs;
}

/** Each non-empty string once, in first-seen order: a purge sends each tag and URL once. */
export function distinct(values: string[]): string[] {
  return [...new Set(values.filter((value) => value !== ''))];
}

async function viaFetch(request: PurgeRequest, signal: AbortSignal): Promise<PurgeAnswer> {
  const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual', signal });
  const parts: Buffer[] = [];
  let bytes = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(Buffer.from(value));
      bytes += value.byteLength;
      if (bytes >= MAX_ANSWER_BYTES) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  }
  return { status: response.status, body: Buffer.concat(parts).subarray(0, MAX_ANSWER_BYTES).toString('utf8') };
}

function viaHttp(request: PurgeRequest, signal: AbortSignal): Promise<PurgeAnswer> {
  const url = new URL(request.url);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // A connection of its own (purges are few): a kept-alive socket Varnish has closed meanwhile
    // would fail an attempt for nothing.
    const outgoing = transport.request(url, { method: request.method, headers: { ...request.headers, host: request.host }, agent: false, signal }, (incoming) => {
      const parts: Buffer[] = [];
      let bytes = 0;
      incoming.on('data', (chunk: Buffer) => {
        if (bytes >= MAX_ANSWER_BYTES) return;
        parts.push(chunk);
        bytes += chunk.length;
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(parts).subarray(0, MAX_ANSWER_BYTES).toString('utf8') }));
      incoming.on('error', reject);
      // The connection closed before the answer's end (a no-op once 'end' resolved).
      incoming.on('close', () => reject(new Error('the answer was cut short')));
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** What went wrong on the wire, without the URL (undici's "fetch failed" hides it in `cause`). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException | undefined)?.code;
  if (code) return code;
  const message = (cause as Error | undefined)?.message ?? (error as Error | undefined)?.message;
  return message ? message : String(error);
}
