/**
 * The Media Library's imports from URLs (`POST /upload/actions/upload-from-urls`, and whatever else
 * calls the upload plugin's `file.fetchUrlToInputFile`) download through the API's URL fetcher
 * (source-fetcher.ts) under the same address policy: public addresses only unless the operator's
 * `urlAllowlist` names them, the host resolved once and every connection pinned to a checked address,
 * after every redirect too (at most `fetchMaxRedirects`). Strapi 5.54's own function checked the
 * first DNS answer against a short list (no 0.0.0.0, which reaches loopback on Linux, no CGNAT),
 * then let fetch() resolve again and follow redirects unchecked, and its messages told an Author
 * which internal ports answered and how (docs/security.md, "Threat model").
 *
 * Strapi's contract is kept: the same arguments, `{ file }` with the temp file in the caller's
 * `tmpWorkingDirectory` (the caller removes that folder; a failed import leaves nothing in it), the
 * same file name (Content-Disposition, else the URL's last segment, else `untitled_<date>_<time>`)
 * and type (Content-Type), Strapi's byte limit (`sizeLimit`) and time limit (60 s: Media Library
 * files are often far larger than the API's images), and the same progress reports. What changes is
 * what an admin reads when it fails: one message for every host it may not reach or that does not
 * resolve, one for every fetch that failed (never the other server's status), so no answer tells
 * what is on an internal address. A client that closes the request stops its download, and the
 * request's later URLs are not fetched.
 */
import crypto from 'crypto';
import path from 'path';
import type { Core } from '@strapi/strapi';
import { errors as strapiErrors, file as fileUtils } from '@strapi/utils';
import { HostRefusal, isApiError } from '../http/api-error';
import { getConfig } from '../get-service';
import { policyFor, type AddressPolicy } from './address-policy';
import { fetchSource, type Resolver } from './source-fetcher';

/** What an admin reads when an import fails, by cause. */
export const IMPORT_ERRORS = {
  /** Every refused host, and every host that does not resolve: the same words for all. */
  refused: 'Cannot import from this URL: its host is unknown or not one this server may fetch from',
  /** No answer, an error status, a broken transfer, a timeout, too many redirects. */
  failed: 'Could not fetch this URL',
  invalid: 'Invalid URL: only http:// and https:// URLs can be imported',
  cancelled: 'Import cancelled: the request was closed',
  tooLarge: (sizeLimit: number) => `File too large: maximum allowed size is ${fileUtils.bytesToHumanReadable(sizeLimit)}`,
};

/** Strapi's own time limit for one import (@strapi/upload's services/file.ts). */
export const IMPORT_TIMEOUT_MS = 60_000;
/** @strapi/upload's default `sizeLimit`, for a caller that gives none and an app that sets none. */
const DEFAULT_SIZE_LIMIT = 1_000_000_000;

/** The file object Strapi's upload flow takes (@strapi/upload's `UrlFetchedFile`). */
export interface UrlFetchedFile {
  filepath: string;
  originalFilename: string;
  mimetype: string;
  size: number;
  tmpWorkingDirectory?: string;
}

/** @strapi/upload's `UrlFetchProgress`: cumulative bytes, and the declared length or null. */
export interface UrlFetchProgress {
  bytesWritten: number;
  totalBytes: number | null;
}

export type FetchUrlToInputFile = (
  url: string,
  tmpWorkingDirectory: string,
  sizeLimit?: number,
  onProgress?: (progress: UrlFetchProgress) => void
) => Promise<{ file: UrlFetchedFile }>;

export interface ImportSettings {
  policy: AddressPolicy;
  maxRedirects: number;
  timeoutMs: number;
  sizeLimit: number;
  /** Aborted when the client has gone. */
  signal?: AbortSignal;
  resolver?: Resolver;
  /** Where a progress callback's own failure is reported (it never fails the import). */
  warn: (message: string) => void;
}

/** The filename in a Content-Disposition header, as Strapi's import reads it. */
const DISPOSITION_NAME = /filename\*?=['"]?(?:UTF-\d['"]*)?([^;\r\n"']*)['"]?/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The imported file's name, as Strapi names it: never a path (the temp file's own name is random). */
export function importedName(contentDisposition: string | null, lastSegment: string, now = new Date()): string {
  const fromHeader = contentDisposition?.match(DISPOSITION_NAME)?.[1];
  const name = (fromHeader && path.basename(decoded(fromHeader))) || (lastSegment && path.basename(lastSegment));
  if (name) return name;
  const date = now.toISOString().split('T')[0];
  const time = now.toTimeString().split(' ')[0].replace(/:/g, '');
  return `untitled_${date}_${time}`;
}

function importError(error: unknown, settings: ImportSettings): Error {
  if (settings.signal?.aborted) return new strapiErrors.ApplicationError(IMPORT_ERRORS.cancelled);
  if (error instanceof HostRefusal) return new strapiErrors.ApplicationError(IMPORT_ERRORS.refused);
  if (isApiError(error) && error.status === 413) return new strapiErrors.ApplicationError(IMPORT_ERRORS.tooLarge(settings.sizeLimit));
  // 320 that is no host refusal: not a URL, or not http(s), as given or after a redirect.
  if (isApiError(error) && error.code === 320) return new strapiErrors.ApplicationError(IMPORT_ERRORS.invalid);
  return new strapiErrors.ApplicationError(IMPORT_ERRORS.failed);
}

/** Downloads `url` into `tmpWorkingDirectory` for Strapi's upload flow, or throws an ApplicationError. */
export async function importUrl(
  url: string,
  tmpWorkingDirectory: string,
  onProgress: ((progress: UrlFetchProgress) => void) | undefined,
  settings: ImportSettings
): Promise<{ file: UrlFetchedFile }> {
  const report = (bytesWritten: number, totalBytes: number | null) => {
    try {
      onProgress?.({ bytesWritten, totalBytes });
    } catch (error) {
      settings.warn(`URL fetch progress callback threw, ignoring: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // The temp file's name is ours: the client's name is data, never a path.
  const destination = path.join(tmpWorkingDirectory, `url-import-${crypto.randomUUID()}`);
  try {
    // The request's JSON may hold anything where a URL should be: what is no string is read as one.
    const fetched = await fetchSource(typeof url === 'string' ? url : String(url), {
      policy: settings.policy,
      maxBytes: settings.sizeLimit,
      timeoutMs: settings.timeoutMs,
      maxRedirects: settings.maxRedirects,
      destination,
      resolver: settings.resolver,
      signal: settings.signal,
      onProgress: report,
    });
    const name = importedName(fetched.contentDisposition, fetched.filename);
    return {
      file: {
        filepath: fetched.filepath,
        originalFilename: name,
        mimetype: fetched.contentType?.split(';')[0].trim() || 'application/octet-stream',
        size: fetched.bytes,
        tmpWorkingDirectory,
      },
    };
  } catch (error) {
    // fetchSource has removed whatever it wrote.
    throw importError(error, settings);
  }
}

/** An AbortSignal of the current request that fires when its client goes before the answer ended. */
function clientGone(strapi: Core.Strapi): { signal?: AbortSignal; release(): void } {
  const ctx = strapi.requestContext.get();
  const res = ctx?.res;
  if (!res) return { release() {} };
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  if ((res.destroyed || ctx.req.socket?.destroyed) && !res.writableFinished) controller.abort();
  else res.once('close', onClose);
  return { signal: controller.signal, release: () => res.off('close', onClose) };
}

const positive = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;

const FILE_SERVICE = 'plugin::upload.file';

/**
 * Puts `importUrl` in place of the upload plugin's `file.fetchUrlToInputFile`, through Strapi's
 * service registry (`extend`): the upload controller looks the service up for each request
 * (`getService('file')`), so every import from then on goes through it. Runs in the plugin's
 * register(); a Strapi whose file service has no such function is named in the log.
 */
export function guardMediaLibraryImports(strapi: Core.Strapi): void {
  const services = strapi.get('services');
  const current = services.get(FILE_SERVICE) as Record<string, unknown> | undefined;
  if (typeof current?.fetchUrlToInputFile !== 'function') {
    strapi.log.warn(`image-api: ${FILE_SERVICE} has no fetchUrlToInputFile: the Media Library's imports from URLs are left as they are`);
    return;
  }
  const fetchUrlToInputFile: FetchUrlToInputFile = async (url, tmpWorkingDirectory, sizeLimit, onProgress) => {
    const cfg = getConfig(strapi);
    const client = clientGone(strapi);
    try {
      return await importUrl(url, tmpWorkingDirectory, onProgress, {
        policy: policyFor(cfg.urlAllowlist),
        maxRedirects: cfg.fetchMaxRedirects,
        timeoutMs: IMPORT_TIMEOUT_MS,
        sizeLimit: [sizeLimit, strapi.config.get('plugin::upload.sizeLimit')].find(positive) ?? DEFAULT_SIZE_LIMIT,
        signal: client.signal,
        warn: (message) => strapi.log.warn(message),
      });
    } finally {
      client.release();
    }
  };
  services.extend(FILE_SERVICE, (service: Record<string, unknown>) => ({ ...service, fetchUrlToInputFile }));
  const proxy = strapi.config.get('server.proxy.fetch') || strapi.config.get('server.proxy.global');
  if (proxy) {
    // A proxy would resolve and connect itself: the checked address could not be pinned.
    strapi.log.warn('image-api: the Media Library\'s imports from URLs connect directly, not through server.proxy (docs/security.md)');
  }
}
