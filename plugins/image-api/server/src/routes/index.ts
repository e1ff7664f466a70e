/**
 * `/api/<version>/<action>` (with or without a trailing slash): the upload dialect. Any digits are
 * routed here so another version gets the contract's error 110 rather than a bare 404. Public
 * routes: the controller checks the API key itself, to answer in the contract's shape.
 */
const upload = (method: 'GET' | 'POST') => ({
  method,
  path: '/:version(\\d+)/:action',
  handler: 'upload.handle',
  config: { auth: false },
});

export default {
  'content-api': {
    type: 'content-api',
    prefix: '',
    routes: [upload('GET'), upload('POST')],
  },
};
