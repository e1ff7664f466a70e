/** The plugin's names, as Strapi knows them: its id, its admin permissions and its content types. */

export const PLUGIN_ID = 'image-api';

/**
 * The plugin's admin permissions (Settings → Roles → Plugins → Image API): registered by
 * server/src/admin/admin-permissions.ts, required by the admin routes and asked by the admin's pages.
 */
export const ACTIONS = {
  usageRead: `plugin::${PLUGIN_ID}.usage.read`,
  keysManage: `plugin::${PLUGIN_ID}.keys.manage`,
  keysReveal: `plugin::${PLUGIN_ID}.keys.reveal`,
  imagesDelete: `plugin::${PLUGIN_ID}.images.delete`,
  // The moderation queue: flagged, held and reported images; approve, take down, block; hash lists.
  imagesReview: `plugin::${PLUGIN_ID}.images.review`,
} as const;

/** The plugin's content types. */
export const IMAGE_UID = `plugin::${PLUGIN_ID}.image`;
export const API_KEY_UID = `plugin::${PLUGIN_ID}.api-key`;
export const PENDING_UPLOAD_UID = `plugin::${PLUGIN_ID}.pending-upload`;
export const IDEMPOTENT_UPLOAD_UID = `plugin::${PLUGIN_ID}.idempotent-upload`;
export const USAGE_DAY_UID = `plugin::${PLUGIN_ID}.usage-day`;
export const RENDITION_UID = `plugin::${PLUGIN_ID}.rendition`;
export const PURGE_UID = `plugin::${PLUGIN_ID}.purge`;
export const REPORT_UID = `plugin::${PLUGIN_ID}.report`;
export const BLOCK_UID = `plugin::${PLUGIN_ID}.block`;

/**
 * What a key's moderation does with an upload scored past its threshold (docs/moderation.md):
 * nothing (not classified), flag it, hold it for review, or refuse it.
 */
export const MODERATION_MODES = ['off', 'flag', 'hold', 'refuse'] as const;
export type ModerationMode = (typeof MODERATION_MODES)[number];

/**
 * Where an image stands in moderation: nothing to say; flagged (public, its viewer page asks before
 * showing it); held (every URL 404 until approved); approved by an admin (served as any image).
 */
export const MODERATION_STATES = ['none', 'flagged', 'held', 'approved'] as const;
export type ModerationState = (typeof MODERATION_STATES)[number];

/** The reasons a viewer may give when reporting an image. */
export const REPORT_REASONS = ['sexual', 'violence', 'hate', 'illegal', 'spam', 'copyright', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
