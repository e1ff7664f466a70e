/**
 * Downloads a URL source to a temporary file (docs/api.md, "URL sources"), safely:
 * - http and https only; credentials in the URL are never sent;
 * - every connection is pinned to an address the policy approved (the check and the connect use the
 *   same resolved address, so DNS rebinding has no window), after every redirect too;
 * - at most `maxRedirects` redirects, one time limit for the whole fetch, and a byte cap counted on
 *   the bytes received whatever Content-Length says.
 */
import dns from 'dns';
import fs from 'fs';
import http from 'http';
import https from 'https';
import net from 'net';
import { pipeline } from 'stream/promises';
import { Transform } from 'stream';
import { ApiError, errors } from '../http/api-error';
import type { AddressPolicy } from './address-policy';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to all its addresses; injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })) as ResolvedAddress[];

export interface FetchOptions {
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Where the body is written, in a folder that exists; the caller owns and removes it. */
  destination: string;
  resolver?: Resolver;
  /** Ends the fetch early (the client went away): it fails (321, cancelled) and leaves no file. */
  signal?: AbortSignal;
  /**
   * Told the bytes received so far: once with 0 when the answer's headers passed (with the declared
   * length, or null), then after every chunk. Must not throw.
   */
  onProgress?: (received: number, declared: number | null) => void;
}

export interface FetchedSource {
  filepath: string;
  bytes: number;
  /** The last path segment of the final URL, decoded; '' when there is none. */
  filename: string;
  /** The final answer's Content-Type and Content-Disposition headers, as sent. */
  contentType: string | null;
  contentDisposition: string | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function parseSourceUrl(text: string, base?: URL): URL {
  // The client's own URL must be absolute with `//` (`https:/host/a.jpg` is a typo, which the URL
  // parser would quietly mend); a redirect's Location is resolved against the URL it came from.
  if (!base && /^https?:(?!\/\/)/i.test(text)) throw errors.urlRefused('Invalid URL: it must start with http:// or https://');
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw errors.urlRefused('Invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    if (!base && /^[A-Za-z]:[\\/]/.test(text)) throw errors.filePathAsSource(url.protocol.replace(/:$/, ''));
    throw errors.urlRefused(`Unsupported URL scheme (${url.protocol.replace(/:$/, '')})`);
  }
  return url;
}

/** Picks the address to connect to, or refuses. IP literals are checked as they are. */
async function pickAddress(url: URL, policy: AddressPolicy, resolver: Resolver): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = net.isIP(host);
  let candidates: ResolvedAddress[];
  if (family) {
    candidates = [{ address: host, family: family as 4 | 6 }];
  } else {
    try {
      candidates = await resolver(host);
    } catch {
      throw errors.hostUnresolved(host);
    }
  }
  let refusal = `Host ${host} has no address`;
  for (const candidate of candidates) {
    const verdict = policy.check(candidate.address, host);
    if (verdict.allowed) return candidate;
    refusal = verdict.reason;
  }
  throw errors.hostRefused(refusal);
}

function lastSegment(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function fetchSource(sourceUrl: string, options: FetchOptions): Promise<FetchedSource> {
  const resolver = options.resolver ?? systemResolver;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort);

  try {
    if (options.signal?.aborted) throw errors.urlFailed('Source URL fetch cancelled');
    let url = parseSourceUrl(sourceUrl);
    for (let redirects = 0; ; redirects++) {
      const pinned = await pickAddress(url, options.policy, resolver);
      const response = await request(url, pinned, controller.signal);
      const status = response.statusCode ?? 0;

      if (REDIRECTS.has(status) && response.headers.location) {
        response.resume();
        if (redirects >= options.maxRedirects) {
          throw errors.urlFailed(`Too many redirects (more than ${options.maxRedirects})`);
        }
        url = parseSourceUrl(response.headers.location, url);
        continue;
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw errors.urlFailed(`Source URL answered HTTP ${status}`);
      }
      const length = response.headers['content-length'];
      const declared = length === undefined || length === '' ? NaN : Number(length);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw errors.tooBig(options.maxBytes);
      }
      options.onProgress?.(0, Number.isFinite(declared) ? declared : null);
      const bytes = await saveCapped(response, options.destination, options.maxBytes, (received) =>
        options.onProgress?.(received, Number.isFinite(declared) ? declared : null)
      );
      return {
        filepath: options.destination,
        bytes,
        filename: lastSegment(url),
        contentType: response.headers['content-type'] ?? null,
        contentDisposition: response.headers['content-disposition'] ?? null,
      };
    }
  } catch (error) {
    await fs.promises.rm(options.destination, { force: true });
    if (error instanceof ApiError) throw error;
    if (options.signal?.aborted) throw errors.urlFailed('Source URL fetch cancelled');
    if (timedOut) throw errors.urlFailed(`Source URL timed out after ${options.timeoutMs / 1000} s`);
    const code = (error as NodeJS.ErrnoException)?.code;
    throw errors.urlFailed(`Source URL unreachable${code ? ` (${code})` : ''}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
}

/** One GET, connected to `pinned` whatever DNS says now; no credentials, no cookies. */
function request(url: URL, pinned: ResolvedAddress, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  const lookup: net.LookupFunction = (_host, opts, callback) => {
    if ((opts as dns.LookupAllOptions).all) {
      (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { 'user-agent': 'strapi-plugin-image-api', accept: 'image/*,*/*;q=0.8' },
        lookup,
        signal,
        agent: false,
      },
      resolve
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * How much of the download may wait in memory for the disk. With streams' 16 KB default every
 * 64 KB socket chunk stalled the download until its write finished; with room for several, chunks
 * queued behind a write go out together in one writev.
 */
const WRITE_BATCH = 1024 * 1024;

/** Streams the body to `destination`, failing with 413 as soon as more than `maxBytes` arrive. */
async function saveCapped(
  body: NodeJS.ReadableStream,
  destination: string,
  maxBytes: number,
  onChunk: (received: number) => void
): Promise<number> {
  let received = 0;
  const counter = new Transform({
    highWaterMark: WRITE_BATCH,
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > maxBytes) return callback(errors.tooBig(maxBytes));
      onChunk(received);
      callback(null, chunk);
    },
  });
  await pipeline(body, counter, fs.createWriteStream(destination, { highWaterMark: WRITE_BATCH }));
  return received;
}
