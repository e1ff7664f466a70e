/**
 * What every purger is (docs/deployment.md, "Caching images"): a cache or CDN in front that is told
 * to forget an image's answers, by the cache tags they carry (purge/cache-tags.ts) and, for files a
 * CDN serves from the bucket (which sets no tags), by their URLs. A purger sends exactly what its
 * provider's published API documents, each request bounded by a timeout; purge/purge-journal.ts
 * records, retries and resumes what it owes them.
 */

/** The purgers the plugin knows, by the name a purge still owed records. */
export const PURGER_NAMES = ['varnish', 'cloudflare', 'fastly'] as const;
export type PurgerName = (typeof PURGER_NAMES)[number];

/** What one purge asks a purger to forget. */
export interface PurgeBatch {
  /** Cache tags (`img-<id_encoded>`, ...): every answer that carries one of them. */
  tags: string[];
  /** Absolute URLs of files served without tags (a bucket behind a CDN): each forgotten by URL. */
  urls: string[];
}

export interface Purger {
  readonly name: PurgerName;
  /**
   * Sends the purge, split into as many requests as the provider's limits need. Resolves once every
   * request was acknowledged; rejects (an Error whose message says what failed, never a token) when
   * one was refused, failed or timed out.
   */
  purge(batch: PurgeBatch): Promise<void>;
}
