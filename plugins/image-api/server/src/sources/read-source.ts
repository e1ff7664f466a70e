/**
 * The bytes of an upload's source, whichever form it took: a file part, base64 text, base64 already
 * decoded by the body parser, or a URL to download. The byte limit holds for all of them.
 */
import fs from 'fs';
import path from 'path';
import { errors } from '../http/api-error';
import type { RequestScope } from '../http/request-scope';
import type { AddressPolicy } from './address-policy';
import { decodeBase64Source } from './base64-source';
import { fetchSource } from './source-fetcher';
import type { SourceInput } from '../protocol/source-precedence';

export interface SourceLimits {
  maxBytes: number;
  fetchTimeoutMs: number;
  fetchMaxRedirects: number;
}

export interface SourceBytes {
  bytes: Buffer;
  /** The client's name for the file (a file part's, a URL's last segment), if it gave one. */
  filename: string | null;
}

/** Reads a file of known size into `into` in one call (fs.readFile allocates and reads in 512 KB steps). */
async function readWhole(filepath: string, into: Buffer): Promise<Buffer> {
  const file = await fs.promises.open(filepath, 'r');
  try {
    let offset = 0;
    while (offset < into.length) {
      const { bytesRead } = await file.read(into, offset, into.length - offset, offset);
      if (bytesRead === 0) throw new Error(`${filepath}: shorter than the ${into.length} bytes downloaded`);
      offset += bytesRead;
    }
    return into;
  } finally {
    await file.close();
  }
}

export async function readSource(source: SourceInput, scope: RequestScope, limits: SourceLimits, policy: AddressPolicy): Promise<SourceBytes> {
  switch (source.kind) {
    case 'file':
      if (source.bytes.length > limits.maxBytes) throw errors.tooBig(limits.maxBytes);
      return { bytes: source.bytes, filename: source.filename };
    case 'decoded':
      return { bytes: source.bytes, filename: null };
    case 'base64':
      return { bytes: decodeBase64Source(source.text, limits.maxBytes), filename: null };
    case 'url': {
      // Downloaded to the request's temp folder, then read back into a buffer the request lends.
      const fetched = await fetchSource(source.url, {
        policy,
        maxBytes: limits.maxBytes,
        timeoutMs: limits.fetchTimeoutMs,
        maxRedirects: limits.fetchMaxRedirects,
        destination: path.join(await scope.tempDir(), 'url-source'),
      });
      return { bytes: await readWhole(fetched.filepath, scope.borrow(fetched.bytes)), filename: fetched.filename || null };
    }
  }
}
