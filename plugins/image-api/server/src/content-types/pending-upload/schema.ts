/**
 * Write-ahead journal of provider files that may be left without records: those of uploads in flight
 * and of deletions under way (storage/journal.ts). A row that outlives its upload or
 * deletion names the files the sweep must remove.
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
  indexes: [
    // The sweep's lookup of rows older than its age.
    { name: 'image_api_pending_uploads_created_at_index', columns: ['created_at'] },
    // A deletion closes its rows by image name.
    { name: 'image_api_pending_uploads_name_index', columns: ['name'] },
  ],
};
