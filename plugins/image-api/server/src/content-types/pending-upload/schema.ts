/**
 * Write-ahead journal of uploads in flight: written before the provider files, deleted in the same
 * transaction that records the upload. A row that outlives its upload (a crash in between) names
 * the provider files the boot sweep must remove.
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_pending_uploads',
  info: {
    singularName: 'pending-upload',
    pluralName: 'pending-uploads',
    displayName: 'Pending API upload',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    name: { type: 'string', required: true },
    // [{ hash, ext }] of every provider file the upload writes.
    files: { type: 'json', required: true },
  },
  // The sweep's lookup of rows older than its age.
  indexes: [{ name: 'image_api_pending_uploads_created_at_index', columns: ['created_at'] }],
};
