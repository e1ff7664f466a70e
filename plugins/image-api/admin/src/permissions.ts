/** The plugin's admin permissions: a copy of server/src/admin-permissions.ts's, which registers them. */
export const PLUGIN_ID = 'image-api';

export const ACTIONS = {
  usageRead: `plugin::${PLUGIN_ID}.usage.read`,
  keysManage: `plugin::${PLUGIN_ID}.keys.manage`,
  keysReveal: `plugin::${PLUGIN_ID}.keys.reveal`,
  imagesDelete: `plugin::${PLUGIN_ID}.images.delete`,
} as const;

/** The content types the plugin's panels and views concern. */
export const KEY_UID = 'plugin::image-api.api-key';
export const IMAGE_UID = 'plugin::image-api.image';
