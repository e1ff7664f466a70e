/**
 * Names the plugin shares with Strapi: its id, the content types it reads and writes, its public paths.
 * Its own id, permissions and content types come from shared/identity.ts, which the admin reads too.
 */
import { PLUGIN_ID } from '../../../shared/identity';

export { ACTIONS, API_KEY_UID, BLOCK_UID, IDEMPOTENT_UPLOAD_UID, IMAGE_UID, MODERATION_MODES, MODERATION_STATES, PENDING_UPLOAD_UID, PLUGIN_ID, PURGE_UID, RENDITION_UID, REPORT_REASONS, REPORT_UID, USAGE_DAY_UID } from '../../../shared/identity';
export type { ModerationMode, ModerationState, ReportReason } from '../../../shared/identity';

/** Where Strapi keeps the plugin's configuration (`strapi.config.get(CONFIG_PATH)`). */
export const CONFIG_PATH = `plugin::${PLUGIN_ID}`;

/** Other plugins' content types the plugin writes to or links to. */
export const FILE_UID = 'plugin::upload.file';
export const FOLDER_UID = 'plugin::upload.folder';
export const ADMIN_USER_UID = 'admin::user';
export const SITE_USER_UID = 'plugin::users-permissions.user';

/**
 * How long an instance reuses its lookup of an image (delivery/image-sources.ts): another instance's
 * change reaches it within this, and the purges of a deletion are repeated after it
 * (purge/purge-journal.ts).
 */
export const SOURCE_TTL_MS = 1000;

/** The viewer page, `/image/<id_encoded>`, outside the /api prefix. */
export const VIEWER_PATH = '/image';
