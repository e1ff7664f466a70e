/**
 * Content API: `/api/<version>/<action>` (with or without a trailing slash), the upload dialect.
 * Everything under `/api/<digits>/`, any method, is routed here so that whatever a client sends
 * gets an answer in the API's error shape (110 for another version, 120 for another action, 405 for another
 * method) rather than Strapi's 404. Public routes: the controller checks the API key itself.
 *
 * `/api/1/openapi.json` and `/api/1/docs`: the OpenAPI document and its rendering (openapi/docs-controller).
 *
 * Admin API (`/image-api/...`, admin JWT, each route behind one of the plugin's permissions): reveal
 * and regenerate a key from its entry's edit view, download a client configuration (ShareX, PicGo,
 * curl) filled in with it; the "Image API" page's usage, keys and image deletion; moderation's
 * review (the queue, its thumbnails, approve, take down, block, hash lists).
 */
import { ACTIONS, PLUGIN_ID } from '../config/constants';
import { ADMIN_ROUTES } from '../../../shared/contracts/admin-routes';

/**
 * The hash list import's path, as the admin router matches it (any case, a trailing slash or not):
 * its body, up to megabytes, is read by its route once the admin's permission is checked, not by
 * Strapi's parser (http-entries.ts).
 */
export function blocklistImportPathMatcher(): (path: string) => boolean {
  const pattern = new RegExp(`^/${PLUGIN_ID}${ADMIN_ROUTES.blocklistImport}/?$`, 'i');
  return (path: string) => pattern.test(path);
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const dialect = (method: (typeof METHODS)[number]) => ({
  method,
  path: '/:version(\\d+)/:action(.*)',
  handler: 'api.handle',
  config: { auth: false },
});

const adminAction = (method: 'GET' | 'POST' | 'DELETE', path: string, handler: string, action: string) => ({
  method,
  path,
  handler,
  config: { policies: ['admin::isAuthenticatedAdmin', { name: 'admin::hasPermissions', config: { actions: [action] } }] },
});

/** The API's description, ahead of the dialect's catch-all (which would answer 120 for these actions). */
const docs = (path: string, handler: 'document' | 'page' | 'asset') => ({
  method: 'GET' as const,
  path: `/1/${path}`,
  handler: `docs.${handler}`,
  config: { auth: false as const },
});

export default {
  'content-api': {
    type: 'content-api',
    prefix: '',
    routes: [docs('openapi.json', 'document'), docs('docs', 'page'), docs('docs/:file', 'asset'), ...METHODS.map(dialect)],
  },
  admin: {
    type: 'admin',
    routes: [
      adminAction('GET', ADMIN_ROUTES.revealKey, 'api-key-admin.reveal', ACTIONS.keysReveal),
      adminAction('POST', ADMIN_ROUTES.regenerateKey, 'api-key-admin.regenerate', ACTIONS.keysReveal),
      adminAction('GET', ADMIN_ROUTES.clientConfig, 'api-key-admin.clientConfig', ACTIONS.keysReveal),
      adminAction('GET', ADMIN_ROUTES.usageOverview, 'usage-admin.overview', ACTIONS.usageRead),
      adminAction('GET', ADMIN_ROUTES.usageKeys, 'usage-admin.keys', ACTIONS.keysManage),
      adminAction('GET', ADMIN_ROUTES.keyUsage, 'usage-admin.keyUsage', ACTIONS.keysManage),
      adminAction('GET', ADMIN_ROUTES.keyHolding, 'usage-admin.keyHolding', ACTIONS.keysManage),
      adminAction('DELETE', ADMIN_ROUTES.deleteImage, 'usage-admin.deleteImage', ACTIONS.imagesDelete),
      adminAction('GET', ADMIN_ROUTES.reviewQueue, 'review-admin.queue', ACTIONS.imagesReview),
      adminAction('GET', ADMIN_ROUTES.reviewThumbnail, 'review-admin.thumbnail', ACTIONS.imagesReview),
      adminAction('POST', ADMIN_ROUTES.reviewApprove, 'review-admin.approve', ACTIONS.imagesReview),
      adminAction('POST', ADMIN_ROUTES.reviewTakedown, 'review-admin.takedown', ACTIONS.imagesReview),
      adminAction('POST', ADMIN_ROUTES.reviewBlock, 'review-admin.block', ACTIONS.imagesReview),
      adminAction('GET', ADMIN_ROUTES.blocklist, 'review-admin.blocklist', ACTIONS.imagesReview),
      adminAction('POST', ADMIN_ROUTES.blocklistImport, 'review-admin.importList', ACTIONS.imagesReview),
      // Any admin who may open an image record: preset URLs are public (docs/api.md, "Transformations").
      { method: 'GET', path: ADMIN_ROUTES.serving, handler: 'usage-admin.serving', config: { policies: ['admin::isAuthenticatedAdmin'] } },
    ],
  },
};
