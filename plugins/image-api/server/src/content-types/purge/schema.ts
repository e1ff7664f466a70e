/**
 * Purges owed to the caches and CDNs in front (purge/purge-journal.ts): a row is written in the
 * transaction that deletes images, and goes once every configured purger has acknowledged its three
 * rounds (at once, once other instances' lookups of the images have run out, and ~10 s later), or
 * once the caches' max-age has passed.
 */
export default {
  kind: 'collectionType',
  collectionName: 'image_api_purges',
  info: {
    singularName: 'purge',
    pluralName: 'purges',
    displayName: 'Image API purge',
    description: 'Cache tags and URLs of deleted images, until every cache in front has forgotten them (purge/purge-journal.ts)',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    // The tags every answer of the images carried (`img-<id_encoded>`).
    tags: { type: 'json', required: true },
    // Absolute URLs of their files served without tags (a bucket behind a CDN).
    urls: { type: 'json', required: true },
    // The purgers (by name) configured where it was recorded: each round owes them all.
    purgers: { type: 'json', required: true },
    // The purgers (by name) that have not acknowledged this round yet.
    owed: { type: 'json', required: true },
    // 1: sent at once; 2: again once other instances' lookups of the images have run out; 3: ~10 s later.
    round: { type: 'integer', required: true },
    // Attempts of this round so far.
    attempts: { type: 'integer', required: true },
    // When the next attempt is due; an attempt under way holds the row until then.
    due_at: { type: 'datetime', required: true },
    last_error: { type: 'text' },
  },
  indexes: [
    // Every instance's poll of what is due.
    { name: 'image_api_purges_due_at_index', columns: ['due_at'] },
    // The polls' give-up of purges older than the caches' max-age.
    { name: 'image_api_purges_created_at_index', columns: ['created_at'] },
  ],
};
