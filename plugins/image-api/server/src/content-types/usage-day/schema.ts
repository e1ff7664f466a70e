/**
 * Running tallies per day (UTC) and API key: what the admin's "Image API" page charts and sums. One
 * row per day and key, updated in the same transaction as the upload or deletion it counts, so the
 * page reads a few hundred small rows instead of scanning a million images.
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_usage_days',
  info: {
    singularName: 'usage-day',
    pluralName: 'usage-days',
    displayName: 'Image API usage day',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    // "2026-11-24", UTC.
    day: { type: 'string', required: true, maxLength: 10 },
    // The key's row id; 0 for uploads without a key.
    key_id: { type: 'integer', required: true, default: 0 },
    uploads: { type: 'integer', required: true, default: 0 },
    removals: { type: 'integer', required: true, default: 0 },
    // Bytes of the original and both variants, as their file entries record them.
    bytes_added: { type: 'biginteger', required: true, default: '0' },
    bytes_removed: { type: 'biginteger', required: true, default: '0' },
    views: { type: 'biginteger', required: true, default: '0' },
    // The views of the images deleted that day (each image's total at its deletion): the page's
    // "Views" is of the images there are, as "Images" and "Storage used" are.
    views_removed: { type: 'biginteger', required: true, default: '0' },
  },
  indexes: [
    // The upsert's conflict target, and the page's 30-day window over every key.
    { name: 'image_api_usage_days_day_key_index', columns: ['day', 'key_id'], type: 'unique' },
    // One key's chart.
    { name: 'image_api_usage_days_key_day_index', columns: ['key_id', 'day'] },
  ],
};
