/** An API key issued to a requester. The key itself is never stored: only its keyed hash. */
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
    active: { type: 'boolean', default: true, required: true },
    // The first characters of the key (prefix included), to recognise it without revealing it.
    key_prefix: { type: 'string', configurable: false },
    key_hash: { type: 'string', private: true, unique: true, configurable: false, visible: false },
    images: { type: 'relation', relation: 'oneToMany', target: 'plugin::image-api.image', mappedBy: 'api_key' },
  },
};
