/**
 * Write-ahead journal of provider files that may be left without records: those of uploads in flight,
 * of deletions under way and of transformation results being kept (storage/journal.ts). A row that
 * outlives its work names the files the sweep must remove. The uid and table keep their first name
 * (`pending-upload`, from when uploads were all it journalled); its labels say what it is.
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_pending_uploads',
  info: {
    singularName: 'pending-upload',
    pluralName: 'pending-uploads',
    displayName: 'Image API file journal',
    description: 'Provider files of uploads, deletions and kept transformation results under way, until their records are written or their files are gone (storage/journal.ts)',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    name: { type: 'string', required: true },
    // [{ hash, ext }] of every provider file the upload, deletion or kept result writes or removes.
    files: { type: 'json', required: true },
  },
  indexes: [
    // The sweep's lookup of rows older than its age.
    { name: 'image_api_pending_uploads_created_at_index', columns: ['created_at'] },
    // A deletion closes its rows by image name.
    { name: 'image_api_pending_uploads_name_index', columns: ['name'] },
  ],
};
