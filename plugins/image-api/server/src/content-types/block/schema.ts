/**
 * The blocklist (moderation/blocklist.ts): fingerprints of images no upload may match. Exact ones
 * (SHA-256 and MD5 of a file) are found by (kind, hash); perceptual ones (PDQ) within a distance, by
 * multi-index hashing: the hash's 16 words of 16 bits each in a column of its own (b_0..b_15), each indexed.
 */
// `b_0`, not `b0`: Strapi names columns in snake case, and lodash writes `b0` as `b_0`.
const BANDS = Array.from({ length: 16 }, (_, i) => `b_${i}`);

export default {
  kind: 'collectionType',
  collectionName: 'image_api_blocks',
  info: {
    singularName: 'block',
    pluralName: 'blocks',
    displayName: 'Image API block',
    description: 'A fingerprint of blocked content: uploads that match it are refused (moderation/blocklist.ts)',
  },
  options: { draftAndPublish: false },
  pluginOptions: {
    'content-manager': { visible: false },
    'content-type-builder': { visible: false },
  },
  attributes: {
    kind: { type: 'enumeration', enum: ['sha256', 'md5', 'pdq'], required: true },
    // Lower-case hex: 64 digits (SHA-256, PDQ) or 32 (MD5).
    hash: { type: 'string', required: true, maxLength: 64 },
    // PDQ only: word i of the hash (hex digits 60-4i..63-4i), 0..65535. Named as their columns
    // (Strapi would write an attribute `b0` as column `b_0`).
    ...Object.fromEntries(BANDS.map((band) => [band, { type: 'integer' }])),
    note: { type: 'text' },
    // An admin's takedown of an image (its fingerprints), or an imported list.
    source: { type: 'enumeration', enum: ['takedown', 'import'], required: true },
    // The taken-down image's id_encoded.
    image_id: { type: 'string', maxLength: 12 },
  },
  indexes: [
    // An exact lookup, and the one row a fingerprint has (imports skip what is listed).
    { name: 'image_api_blocks_kind_hash_index', columns: ['kind', 'hash'], type: 'unique' },
    // A perceptual lookup: one IN list per word, OR-ed (moderation/blocklist.ts).
    ...BANDS.map((band) => ({ name: `image_api_blocks_${band}_index`, columns: [band] })),
  ],
};
