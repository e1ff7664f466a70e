/**
 * The cache tags every answer carrying an image's bytes names it by (original, variants,
 * transformation results; the app and its fast path alike; docs/deployment.md, "Caching images"), so a
 * cache or CDN in front can forget all of them at once, however many URLs they were asked under:
 * - `img-<id_encoded>`: the image; what a deletion purges (purge/purge-journal.ts);
 * - `image-api`: everything this plugin serves.
 * Sent twice: `Surrogate-Key`, space-separated (Fastly, Varnish's xkey), and `Cache-Tag`,
 * comma-separated (Cloudflare). Each CDN strips its own header only, and passes the other one on to
 * every client: so no tag says anything a client does not know from the URL (a tag per API key
 * would tell anyone which images one key uploaded).
 */

export const ALL_IMAGES_TAG = 'image-api';

/** The tag a deletion purges. */
export const imageTag = (idEncoded: string) => `img-${idEncoded}`;

export const cacheTagsOf = (idEncoded: string): string[] => [imageTag(idEncoded), ALL_IMAGES_TAG];

/** The headers that carry the tags. */
export const cacheTagHeaders = (tags: readonly string[]): Record<string, string> => ({
  'Surrogate-Key': tags.join(' '),
  'Cache-Tag': tags.join(','),
});
