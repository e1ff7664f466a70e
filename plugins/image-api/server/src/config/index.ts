/**
 * Plugin configuration: `config/plugins.ts` → `'image-api': { config: { ... } }`.
 * Every option has a default here; `validator` runs at boot and refuses a bad value with a message
 * naming the option.
 */
export interface ImageApiConfig {
  /** Absolute base URL of every URL the API returns. Defaults to Strapi's `server.url`. */
  publicUrl: string | null;
  /** Largest accepted image, in bytes (decoded base64, downloaded URL body, file part). */
  maxBytes: number;
  /** Largest accepted image in pixels (width × height × frames). */
  maxPixels: number;
  /** Image types accepted: any of jpeg, png, gif, webp, bmp. */
  allowedTypes: ImageType[];
  /** Edge of the square `.th` variant. */
  thumbSize: number;
  /** Width of the `.md` variant (never scaled up). */
  mediumWidth: number;
  /** IANA time zone of the `date` field. */
  timeZone: string;
  /** URL sources: total time limit in milliseconds. */
  fetchTimeoutMs: number;
  /** URL sources: redirects followed at most. */
  fetchMaxRedirects: number;
  /** URL sources: hosts, addresses or CIDR ranges allowed although not public. */
  urlAllowlist: string[];
  /** `Access-Control-Allow-Origin` values; `['*']` allows any origin. */
  corsOrigins: string[];
  /** The boot sweep removes crash debris older than this (uploads in flight elsewhere are younger). */
  sweepAfterMs: number;
  /** Parent of per-request temp folders; null: <os tmpdir>/strapi-image-api. */
  tmpDir: string | null;
  /** Name of the Media Library folder API uploads go to. */
  folderName: string;
  /** How long a key lookup is reused (ms); other instances see a key change within this time. */
  keyCacheMs: number;
  /** Uploads whose images are processed at once per process; null: one per CPU core. */
  imageConcurrency: number | null;
  /** libvips threads per image operation (sharp.concurrency, process-wide); null: the cores divided among `imageConcurrency` images, at least one. */
  sharpThreads: number | null;
  /** V8 heap growth before a full collection, in % of the live heap (process-wide); null: V8's own heuristic. See services/heap-growth.ts. */
  heapGrowingPercent: number | null;
  /** JPEG quality of re-encoded originals and of the variants. */
  jpegQuality: number;
  /** Block every libvips loader but JPEG, PNG, GIF and WebP, process-wide. */
  blockUnusedDecoders: boolean;
  /** Keep EXIF/XMP/IPTC (GPS included) in stored originals and report it in original_exifdata. */
  keepExif: boolean;
  /** HMAC secret of API key hashes; defaults to the admin API token salt. */
  keyHashSecret: string | null;
  /** A key made sure to exist at boot (declarative provisioning). */
  bootstrapKey: string | null;
  /** Uploads per key, e.g. "50/minute,500/hour,1000/day", or "off". A key may override it. */
  rateLimit: string;
  /** Failed authentications per client address, e.g. "10/minute", or "off". */
  failedAuthLimit: string;
  /** Redis for rate-limit counters shared by every instance; in-process memory when null. */
  redisUrl: string | null;
  /** Prefix of the plugin's Redis keys. */
  redisPrefix: string;
}

import { parseRateLimit } from './rate-limit';
import { parseAllowlist } from './url-allowlist';

export type ImageType = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp';
export const IMAGE_TYPES: readonly ImageType[] = ['jpeg', 'png', 'gif', 'webp', 'bmp'];

type ListOption = 'allowedTypes' | 'urlAllowlist' | 'corsOrigins';

/**
 * List options are filled in by the validator, not given as defaults: Strapi merges the app's config
 * into the defaults with defaultsDeep, which merges arrays index by index (`allowedTypes: ['png']`
 * would come out as all five types).
 */
const LIST_DEFAULTS: Pick<ImageApiConfig, ListOption> = {
  allowedTypes: ['jpeg', 'png', 'gif', 'webp', 'bmp'],
  urlAllowlist: [],
  corsOrigins: ['*'],
};

const defaults: Omit<ImageApiConfig, ListOption> = {
  publicUrl: null,
  maxBytes: 10_000_000,
  maxPixels: 100_000_000,
  thumbSize: 160,
  mediumWidth: 500,
  timeZone: 'UTC',
  fetchTimeoutMs: 15_000,
  fetchMaxRedirects: 5,
  tmpDir: null,
  sweepAfterMs: 10 * 60 * 1000,
  folderName: 'API uploads',
  jpegQuality: 85,
  keyCacheMs: 2000,
  imageConcurrency: null,
  sharpThreads: null,
  heapGrowingPercent: null,
  blockUnusedDecoders: true,
  keepExif: false,
  keyHashSecret: null,
  bootstrapKey: null,
  rateLimit: '50/minute,500/hour,1000/day',
  failedAuthLimit: '10/minute',
  redisUrl: null,
  redisPrefix: 'image-api',
};

const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

/** Checks the merged config and fills in the list options (in place: Strapi keeps this object). */
function validator(config: ImageApiConfig): void {
  const fail = (option: string, expected: string) => {
    throw new Error(`image-api config: "${option}" must be ${expected} (got ${JSON.stringify(config[option as keyof ImageApiConfig])})`);
  };
  for (const key of Object.keys(LIST_DEFAULTS) as ListOption[]) {
    if (config[key] === undefined) (config as unknown as Record<string, unknown>)[key] = [...LIST_DEFAULTS[key]];
  }
  if (config.publicUrl !== null) {
    try {
      const url = new URL(config.publicUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    } catch {
      fail('publicUrl', 'an absolute http(s) URL or null');
    }
  }
  for (const key of ['maxBytes', 'maxPixels', 'thumbSize', 'mediumWidth', 'fetchTimeoutMs'] as const) {
    if (!isPositiveInt(config[key])) fail(key, 'a positive integer');
  }
  for (const key of ['imageConcurrency', 'sharpThreads'] as const) {
    if (config[key] !== null && !isPositiveInt(config[key])) fail(key, 'a positive integer or null');
  }
  if (config.heapGrowingPercent !== null && (!Number.isInteger(config.heapGrowingPercent) || config.heapGrowingPercent < 1 || config.heapGrowingPercent > 300)) {
    fail('heapGrowingPercent', 'an integer from 1 to 300, or null');
  }
  if (!Number.isInteger(config.keyCacheMs) || config.keyCacheMs < 0 || config.keyCacheMs > 5000) {
    fail('keyCacheMs', 'an integer from 0 to 5000');
  }
  if (!Number.isInteger(config.sweepAfterMs) || config.sweepAfterMs < 0) fail('sweepAfterMs', 'an integer ≥ 0');
  if (!Number.isInteger(config.fetchMaxRedirects) || config.fetchMaxRedirects < 0) {
    fail('fetchMaxRedirects', 'an integer ≥ 0');
  }
  if (!Number.isInteger(config.jpegQuality) || config.jpegQuality < 1 || config.jpegQuality > 100) {
    fail('jpegQuality', 'an integer from 1 to 100');
  }
  if (
    !Array.isArray(config.allowedTypes) ||
    config.allowedTypes.length === 0 ||
    !config.allowedTypes.every((t) => IMAGE_TYPES.includes(t))
  ) {
    fail('allowedTypes', `a non-empty list of ${IMAGE_TYPES.join(', ')}`);
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: config.timeZone });
  } catch {
    fail('timeZone', 'an IANA time zone name');
  }
  for (const key of ['urlAllowlist', 'corsOrigins'] as const) {
    if (!Array.isArray(config[key]) || !config[key].every((v) => typeof v === 'string')) {
      fail(key, 'a list of strings');
    }
  }
  for (const key of ['keepExif', 'blockUnusedDecoders'] as const) {
    if (typeof config[key] !== 'boolean') fail(key, 'true or false');
  }
  for (const key of ['keyHashSecret', 'bootstrapKey'] as const) {
    if (config[key] !== null && (typeof config[key] !== 'string' || config[key] === '')) {
      fail(key, 'a non-empty string or null');
    }
  }
  for (const key of ['rateLimit', 'failedAuthLimit'] as const) {
    if (typeof config[key] !== 'string') fail(key, 'a string like "50/minute,500/hour", or "off"');
    try {
      parseRateLimit(config[key]);
    } catch (error) {
      throw new Error(`image-api config: "${key}": ${(error as Error).message}`);
    }
  }
  try {
    parseAllowlist(config.urlAllowlist);
  } catch (error) {
    throw new Error(`image-api config: "urlAllowlist": ${(error as Error).message}`);
  }
  if (config.redisUrl !== null && !/^rediss?:\/\//.test(String(config.redisUrl))) fail('redisUrl', 'a redis:// URL or null');
  if (config.tmpDir !== null && (typeof config.tmpDir !== 'string' || !config.tmpDir.startsWith('/'))) {
    fail('tmpDir', 'an absolute path or null');
  }
  if (typeof config.folderName !== 'string' || config.folderName.trim() === '') {
    fail('folderName', 'a non-empty string');
  }
}

export default { default: defaults as ImageApiConfig, validator };
