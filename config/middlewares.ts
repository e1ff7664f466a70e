// The image API parses the bodies of its own routes itself (sized for 10 MB images); every other
// route keeps Strapi's body parser with the settings below.
export default [
  'strapi::logger',
  'strapi::errors',
  'strapi::security',
  'strapi::cors',
  'strapi::poweredBy',
  'strapi::query',
  'strapi::body',
  'strapi::session',
  'strapi::favicon',
  'strapi::public',
];
