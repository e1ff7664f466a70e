/**
 * The cache tags every answer carrying an image's bytes names it by (original, variants,
 * transformation results; the app and its fast path alike; docs/deployment.md, "Caching images"), so a
 * cache or CDN in front can forget all of them at once, however many URLs they were asked under:
 * - `img-<id_encoded>`: the image; what a deletion purges (purge/purge-journal.ts);
 * - `key-<documentId>`: every image of one API key (an operator purges a revoked key's at once).
 *   Only with a purger configured: it tells which images one key uploaded, which a client of an app
 *   with no cache in front (none to strip the headers) has no business knowing;
 * - `image-api`: everything this plugin serves.
 * Sent twice: `Surrogate-Key`, space-separated (Fastly, Varnish's xkey), and `Cache-Tag`,
 * comma-separated (Cloudflare). Both CDNs drop the header before the answer reaches a browser.
 */

/** What names an image in the tags. */
export interface TaggedImage {
  idEncoded: string;
  /** The document id of the key it was uploaded with; null: none, or not to be told (see above). */
  keyDocumentId: string | null;
}

export const ALL_IMAGES_TAG = 'image-api';

/** The tag a deletion purges. */
export const imageTag = (idEncoded: string) => `img-${idEncoded}`;

export const cacheTagsOf = ({ idEncoded, keyDocumentId }: TaggedImage): string[] => [
  imageTag(idEncoded),
  ...(keyDocumentId ? [`key-${keyDocumentId}`] : []),
  ALL_IMAGES_TAG,
];

/** The headers that carry the tags. */
export const cacheTagHeaders = (tags: readonly string[]): Record<string, string> => ({
  'Surrogate-Key': tags.join(' '),
  'Cache-Tag': tags.join(','),
});
