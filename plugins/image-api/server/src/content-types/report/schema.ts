import { REPORT_REASONS } from '../../config/constants';

/**
 * Viewers' reports of images (moderation/reports.ts, docs/moderation.md): a reason from a short
 * list, an optional text, and who sent it as a keyed hash only (HMAC of the client address with
 * the server's key hash secret: a repeat is recognised, the address is never stored). Removed with
 * their image, on every road of deletion (storage/image-removal.ts).
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_reports',
  info: {
    singularName: 'report',
    pluralName: 'reports',
    displayName: 'Image report',
    description: 'A viewer\'s report of an image (moderation/reports.ts)',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    // The image reported (its public id; the row goes with the image).
    image_id_encoded: { type: 'string', required: true, maxLength: 12 },
    reason: { type: 'enumeration', enum: [...REPORT_REASONS], required: true },
    text: { type: 'text', maxLength: 1000 },
    // HMAC-SHA256 (hex) of the reporter's address: one report per address and image, nothing more.
    address_hash: { type: 'string', required: true, maxLength: 64, private: true },
  },
  indexes: [
    // The review's list of an image's reports, latest first; a deletion's removal of them.
    { name: 'image_api_reports_image_created_index', columns: ['image_id_encoded', 'created_at'] },
    // One report per address and image: a repeat is refused by the database, however many instances.
    { name: 'image_api_reports_image_address_index', columns: ['image_id_encoded', 'address_hash'], type: 'unique' },
  ],
};
