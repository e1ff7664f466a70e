/** Names the plugin shares with Strapi: its id, the content types it reads and writes, its public paths. */

export const PLUGIN_ID = 'image-api';

/** Where Strapi keeps the plugin's configuration (`strapi.config.get(CONFIG_PATH)`). */
export const CONFIG_PATH = `plugin::${PLUGIN_ID}`;

/** The plugin's content types. */
export const IMAGE_UID = 'plugin::image-api.image';
export const API_KEY_UID = 'plugin::image-api.api-key';
export const PENDING_UPLOAD_UID = 'plugin::image-api.pending-upload';
export const IDEMPOTENT_UPLOAD_UID = 'plugin::image-api.idempotent-upload';
export const USAGE_DAY_UID = 'plugin::image-api.usage-day';

/** Other plugins' content types the plugin writes to or links to. */
export const FILE_UID = 'plugin::upload.file';
export const FOLDER_UID = 'plugin::upload.folder';
export const ADMIN_USER_UID = 'admin::user';
export const SITE_USER_UID = 'plugin::users-permissions.user';

/** The viewer page, `/image/<id_encoded>`, outside the /api prefix. */
export const VIEWER_PATH = '/image';
