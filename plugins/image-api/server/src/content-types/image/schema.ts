import { MODERATION_STATES } from '../../config/constants';

/** One record per accepted upload; its file is a `plugin::upload.file` in the Media Library. */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_images',
  info: {
    singularName: 'image',
    pluralName: 'images',
    displayName: 'API image',
    description: 'An image uploaded through /api/1/upload',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: true },
    'content-type-builder': { visible: false },
  },
  attributes: {
    id_encoded: { type: 'string', required: true, unique: true, maxLength: 12 },
    // The stored base name, equal to the upload file's `hash`: the link back from the Media Library.
    name: { type: 'string', required: true, unique: true },
    title: { type: 'string' },
    // What the Content Manager and the admin's home page name the entry by (its main field): the
    // title, else the client's file name, as the Media Library names files. Kept by the server
    // (admin/field-protection.ts keeps it in step with the title).
    label: { type: 'string', maxLength: 255, writable: false, configurable: false },
    description: { type: 'text' },
    md5: { type: 'string', required: true, maxLength: 32 },
    views: { type: 'biginteger', default: '0', required: true },
    nsfw: { type: 'boolean', default: false, required: true },
    original_filename: { type: 'string', maxLength: 255 },
    original_exifdata: { type: 'json' },
    // When the image stops being served and is swept away; empty: never.
    expires_at: { type: 'datetime' },
    // Both sides named (the key's `images` maps it): a one-sided pair made the Content Manager's
    // relation query for a key's images fail with "no such column: t1.id".
    api_key: { type: 'relation', relation: 'manyToOne', target: 'plugin::image-api.api-key', inversedBy: 'images' },
    // The key's owner at upload time.
    owner: { type: 'relation', relation: 'manyToOne', target: 'admin::user', configurable: false },
    // The Media Library folder (album) it was uploaded to.
    album: { type: 'relation', relation: 'manyToOne', target: 'plugin::upload.folder', configurable: false },
    file: { type: 'media', multiple: false, allowedTypes: ['images'] },
    // What a page paints before the image arrives (images/placeholder.ts): a ThumbHash (base64) and
    // `#rrggbb`. Filled in at boot for images stored before they existed (storage/placeholders.ts).
    placeholder: { type: 'string', maxLength: 64, writable: false, configurable: false },
    dominant_color: { type: 'string', maxLength: 7, writable: false, configurable: false },
    // Moderation (moderation/, docs/moderation.md), kept by the server (admin/field-protection.ts):
    // where the image stands (MODERATION_STATES: `held` answers 404 on every URL), the classifier's
    // score and its five classes (null: not classified), when it entered the review queue (null: not
    // in it) and how many reports it has.
    moderation: { type: 'enumeration', enum: [...MODERATION_STATES], default: 'none', required: true, writable: false, configurable: false },
    nsfw_score: { type: 'float', writable: false, configurable: false },
    nsfw_scores: { type: 'json', writable: false, configurable: false },
    review_since: { type: 'datetime', writable: false, configurable: false },
    report_count: { type: 'integer', default: 0, required: true, writable: false, configurable: false },
    // Keys that reuse or refuse duplicates (storage/duplicates.ts): SHA-256 of the key and the
    // bytes the client sent. The upload's answer as it gave it (no delete link), for every upload: a
    // duplicate answers it again, and the image's events carry it (storage/media-events.ts).
    // Server-only, like the fields below (admin/field-protection.ts): out of the Content Manager's search too.
    source_digest: { type: 'string', maxLength: 64, private: true, writable: false, configurable: false, visible: false, searchable: false },
    answer: { type: 'json', private: true, writable: false, configurable: false, visible: false },
    // SHA-256 of the delete link's secret; the secret itself is never stored.
    delete_hash: { type: 'string', private: true, writable: false, configurable: false, visible: false, searchable: false },
    // The expiry sweep's claim on the record (which sweep, since when): several instances sweep at once.
    expiry_claim: { type: 'string', private: true, writable: false, configurable: false, visible: false, searchable: false },
    expiry_claimed_at: { type: 'datetime', private: true, writable: false, configurable: false, visible: false },
  },
  // Strapi creates no index for `unique: true`; every lookup the plugin makes has one here (the schema
  // sync creates them, on existing databases too, at the next boot).
  indexes: [
    // The viewer, the delete link and the API delete.
    { name: 'image_api_images_id_encoded_index', columns: ['id_encoded'], type: 'unique' },
    // The Media Library's delete hook and the journal sweep (a file's hash is the image's name).
    { name: 'image_api_images_name_index', columns: ['name'], type: 'unique' },
    // The expiry sweep: expired images, oldest first.
    { name: 'image_api_images_expires_at_index', columns: ['expires_at'] },
    // The usage page: the most viewed and the latest images.
    { name: 'image_api_images_views_index', columns: ['views'] },
    { name: 'image_api_images_created_at_index', columns: ['created_at'] },
    // A duplicate's lookup, and the race of two identical uploads at once (one row wins; NULL for
    // keys that store duplicates, which unique indexes allow any number of on all three databases).
    { name: 'image_api_images_source_digest_index', columns: ['source_digest'], type: 'unique' },
    // The moderation queue, oldest first.
    { name: 'image_api_images_review_since_index', columns: ['review_since'] },
  ],
};
