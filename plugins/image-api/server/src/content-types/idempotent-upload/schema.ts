/**
 * Uploads made with an `Idempotency-Key` header, remembered per API key for 24 hours
 * (storage/idempotency.ts): a repeated request answers the first upload's answer. The
 * answer is kept without its delete link, whose secret is derived again when it is replayed.
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_idempotent_uploads',
  info: {
    singularName: 'idempotent-upload',
    pluralName: 'idempotent-uploads',
    displayName: 'Idempotent API upload',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    // The API key's id (a plain column: the row goes with its 24 hours, not with the key).
    api_key_id: { type: 'integer', required: true },
    idempotency_key: { type: 'string', required: true },
    id_encoded: { type: 'string', required: true },
    // The upload's image as the answer gave it (protocol/image-json.ts), delete link aside.
    answer: { type: 'json', required: true },
  },
  indexes: [
    // One upload per key and Idempotency-Key: two requests racing with the same one store one image.
    { name: 'image_api_idempotent_uploads_key_index', columns: ['api_key_id', 'idempotency_key'], type: 'unique' },
    // The sweep of rows past their 24 hours.
    { name: 'image_api_idempotent_uploads_created_at_index', columns: ['created_at'] },
  ],
};
