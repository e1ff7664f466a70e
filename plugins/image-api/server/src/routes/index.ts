/**
 * Content API: `/api/<version>/<action>` (with or without a trailing slash), the upload dialect.
 * Any digits are routed here so another version gets the contract's error 110 rather than a bare
 * 404. Public routes: the controller checks the API key itself, to answer in the contract's shape.
 *
 * Admin API (`/image-api/...`, admin JWT): reveal and regenerate a key from its entry's edit view.
 */
const upload = (method: 'GET' | 'POST') => ({
  method,
  path: '/:version(\\d+)/:action',
  handler: 'upload.handle',
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
    routes: [upload('GET'), upload('POST')],
  },
  admin: {
    type: 'admin',
    routes: [
      adminAction('GET', '/api-keys/:documentId/key', 'reveal'),
      adminAction('POST', '/api-keys/:documentId/regenerate', 'regenerate'),
    ],
  },
};
