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
} as const;

/** The plugin's content types. */
export const IMAGE_UID = `plugin::${PLUGIN_ID}.image`;
export const API_KEY_UID = `plugin::${PLUGIN_ID}.api-key`;
export const PENDING_UPLOAD_UID = `plugin::${PLUGIN_ID}.pending-upload`;
export const IDEMPOTENT_UPLOAD_UID = `plugin::${PLUGIN_ID}.idempotent-upload`;
export const USAGE_DAY_UID = `plugin::${PLUGIN_ID}.usage-day`;
export const RENDITION_UID = `plugin::${PLUGIN_ID}.rendition`;
export const PURGE_UID = `plugin::${PLUGIN_ID}.purge`;
