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
    description: { type: 'text' },
    md5: { type: 'string', required: true, maxLength: 32 },
    views: { type: 'biginteger', default: '0', required: true },
    nsfw: { type: 'boolean', default: false, required: true },
    original_filename: { type: 'string', maxLength: 255 },
    original_exifdata: { type: 'json' },
    api_key: { type: 'relation', relation: 'manyToOne', target: 'plugin::image-api.api-key' },
    // The key's owner at upload time.
    owner: { type: 'relation', relation: 'manyToOne', target: 'admin::user', configurable: false },
    file: { type: 'media', multiple: false, allowedTypes: ['images'] },
  },
  // Strapi creates no index for `unique: true`; every lookup the plugin makes has one here (the schema
  // sync creates them, on existing databases too, at the next boot).
  indexes: [
    // The viewer.
    { name: 'image_api_images_id_encoded_index', columns: ['id_encoded'], type: 'unique' },
    // The Media Library's delete hook and the journal sweep (a file's hash is the image's name).
    { name: 'image_api_images_name_index', columns: ['name'], type: 'unique' },
  ],
};
