/**
 * Kept transformation results (docs/api.md, "Transformations", delivery/renditions.ts): each distinct result
 * is rendered once and its file kept through the upload provider; a row names it. Removed with
 * their image, and, past `transformCacheBytes`, the least recently used first.
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_renditions',
  info: {
    singularName: 'rendition',
    pluralName: 'renditions',
    displayName: 'Kept transformation',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    // SHA-256 (hex) of the source file and the render's plan and encoding: what makes the bytes.
    key: { type: 'string', required: true, unique: true },
    // The image it was rendered from (its stored name).
    image_name: { type: 'string', required: true },
    hash: { type: 'string', required: true },
    ext: { type: 'string', required: true },
    mime: { type: 'string', required: true },
    size: { type: 'integer', required: true },
    width: { type: 'integer', required: true },
    height: { type: 'integer', required: true },
    url: { type: 'text', required: true },
    provider_metadata: { type: 'json' },
    last_used_at: { type: 'datetime', required: true },
  },
  indexes: [
    // A request's lookup.
    { name: 'image_api_renditions_key_index', columns: ['key'], type: 'unique' },
    // A deletion takes its image's results.
    { name: 'image_api_renditions_image_name_index', columns: ['image_name'] },
    // The byte budget evicts the least recently used.
    { name: 'image_api_renditions_last_used_at_index', columns: ['last_used_at'] },
  ],
};
