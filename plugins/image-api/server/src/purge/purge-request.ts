/**
 * One request of a purger, bounded by its timeout: the answer's status and text, or an Error that
 * says which purger, which request and what went wrong, and never carries a token (tokens travel in
 * headers only, and the headers are never quoted).
 */
import http from 'http';
import https from 'https';
import type { PurgerName } from './purger';

export interface PurgeAnswer {
  status: number;
  text: string;
}

/** At most this much of a refusal's body is quoted in the error (providers explain themselves there). */
const QUOTED = 300;
/** An answer's body is read up to this (an acknowledgement is a few hundred bytes). */
const MOST_READ = 64 * 1024;

/**
 * Node's http, not fetch(): a URL purge names the cached host in `Host`, which fetch() replaces with
 * the server's own. A connection of its own each (purges are few): a kept-alive socket the server
 * has closed meanwhile would fail an attempt for nothing.
 */
export function purgeRequest(
  purger: PurgerName,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number
): Promise<PurgeAnswer> {
  const target = new URL(url);
  const what = `${init.method} ${target.host}${target.pathname}`;
  const fail = (cause: string) => new Error(`${purger}: ${what} failed: ${cause}`);
  return new Promise<PurgeAnswer>((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    const headers = { ...init.headers, ...(body ? { 'Content-Length': String(body.length) } : {}) };
    const request = (target.protocol === 'https:' ? https : http).request(target, { method: init.method, headers, agent: false, signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      const chunks: Buffer[] = [];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        if (read < MOST_READ) chunks.push(chunk);
        read += chunk.length;
      });
      response.on('error', (error) => reject(fail(error.message)));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        if (status < 200 || status > 299) reject(new Error(`${purger}: ${what} answered ${status}: ${text.replace(/\s+/g, ' ').trim().slice(0, QUOTED)}`));
        else resolve({ status, text });
      });
    });
    request.on('error', (error: Error & { code?: string }) =>
      reject(fail(error.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : (error.code ?? error.message)))
    );
    request.end(body);
  });
}

/** `items` in slices of at most `size`. */
export const slices = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
