import { MODERATION_MODES } from '../../config/constants';

/**
 * An API key issued to a requester, managed by admins in the Content Manager ("API keys").
 * The key itself is never stored in clear: a keyed hash (HMAC) finds it, and a copy encrypted with
 * Strapi's ENCRYPTION_KEY lets an admin reveal it again, as Strapi's own API tokens do. Creating an
 * entry generates the key on the server (see the api-key lifecycle in register.ts).
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_keys',
  info: {
    singularName: 'api-key',
    pluralName: 'api-keys',
    displayName: 'API key',
    description: 'A key for /api/1/upload, issued on request',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: true },
    'content-type-builder': { visible: false },
  },
  attributes: {
    name: { type: 'string', required: true, unique: true },
    // The requester's stated use of the API.
    description: { type: 'text' },
    contact: { type: 'string' },
    active: { type: 'boolean', default: true, required: true },
    expires_at: { type: 'datetime' },
    // Per-key rate limit, e.g. "100/minute,2000/day" or "off"; empty: the configured default. Checked
    // when the entry is saved, with the grammar of the `rateLimit` option (config/rate-limit.ts).
    rate_limit: { type: 'string' },
    // Expiration of the key's uploads when they ask none: seconds (86400) or an ISO 8601 duration
    // (P30D); empty: they do not expire. Checked when the entry is saved.
    default_expiration: { type: 'string' },
    // The Media Library folder the key's uploads go to, and whose subfolders are its albums; empty:
    // the plugin's folder ("API uploads").
    folder: { type: 'relation', relation: 'manyToOne', target: 'plugin::upload.folder', configurable: false },
    // Images uploaded with the key belong to this admin user (the Media Library's "created by").
    owner: { type: 'relation', relation: 'manyToOne', target: 'admin::user', configurable: false },
    // An upload whose bytes equal an earlier live upload of this key: `store` it again, `reuse` the
    // earlier image (nothing stored), or `refuse` it (409, code 101). storage/duplicates.ts.
    duplicates: { type: 'enumeration', enum: ['store', 'reuse', 'refuse'], default: 'store', required: true },
    // Caps on the key's live images (403, code 105 past either); empty: none. Bytes count every file
    // stored (original and variants). keys/quotas.ts.
    quota_bytes: { type: 'biginteger', min: '1' },
    quota_images: { type: 'integer', min: 1 },
    // What an upload scored past the threshold does (docs/moderation.md): `off` (not classified),
    // `flag`, `hold` or `refuse`; empty: the `moderation.mode` option. The threshold, 0 to 1; empty:
    // `moderation.threshold`.
    moderation: { type: 'enumeration', enum: [...MODERATION_MODES] },
    moderation_threshold: { type: 'float', min: 0, max: 1 },
    // What the key holds now, kept with every upload and deletion, in their transactions.
    live_images: { type: 'integer', default: 0, writable: false, configurable: false },
    live_bytes: { type: 'biginteger', default: '0', writable: false, configurable: false },
    last_used_at: { type: 'datetime', writable: false, configurable: false },
    upload_count: { type: 'integer', default: 0, writable: false, configurable: false },
    // Recognition without revealing: "img_AbCd" and the last four characters.
    key_prefix: { type: 'string', writable: false, configurable: false },
    key_last4: { type: 'string', writable: false, configurable: false },
    // Server-only (admin/field-protection.ts): out of the Content Manager's search too.
    key_hash: { type: 'string', private: true, unique: true, writable: false, configurable: false, visible: false, searchable: false },
    key_encrypted: { type: 'text', private: true, writable: false, configurable: false, visible: false, searchable: false },
    images: { type: 'relation', relation: 'oneToMany', target: 'plugin::image-api.image', mappedBy: 'api_key' },
  },
  // Every request's key lookup; unique, so two instances provisioning one key cannot both insert it.
  indexes: [{ name: 'image_api_keys_key_hash_index', columns: ['key_hash'], type: 'unique' }],
};
