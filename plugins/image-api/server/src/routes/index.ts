/**
 * Content API: `/api/<version>/<action>` (with or without a trailing slash), the upload dialect.
 * Everything under `/api/<digits>/`, any method, is routed here so that whatever a client sends
 * gets an answer in the API's error shape (110 for another version, 120 for another action, 405 for another
 * method) rather than Strapi's 404. Public routes: the controller checks the API key itself.
 *
 * Admin API (`/image-api/...`, admin JWT): reveal and regenerate a key from its entry's edit view.
 */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const dialect = (method: (typeof METHODS)[number]) => ({
  method,
  path: '/:version(\\d+)/:action(.*)',
  handler: 'api.handle',
  config: { auth: false },
});

const adminAction = (method: 'GET' | 'POST', path: string, handler: string) => ({
  method,
  path,
  handler: `api-key-admin.${handler}`,
  config: { policies: ['admin::isAuthenticatedAdmin'] },
});

export default {
  'content-api': {
    type: 'content-api',
    prefix: '',
    routes: METHODS.map(dialect),
  },
  admin: {
    type: 'admin',
    routes: [
      adminAction('GET', '/api-keys/:documentId/key', 'reveal'),
      adminAction('POST', '/api-keys/:documentId/regenerate', 'regenerate'),
    ],
  },
};
