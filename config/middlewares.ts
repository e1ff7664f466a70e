// The image API parses the bodies of its own routes itself (sized for 10 MB images); every other
// route keeps Strapi's body parser with the settings below.
import { storageOrigins } from './storage/s3';

export default ({ env }) => {
  // Strapi's own defaults (CSP_DEFAULTS of @strapi/utils), plus the bucket: without it the Media
  // Library shows no preview of files stored on S3 (the admin panel's CSP blocks them).
  const storage = storageOrigins(env);
  return [
    'strapi::logger',
    'strapi::errors',
    {
      name: 'strapi::security',
      config: {
        contentSecurityPolicy: {
          useDefaults: true,
          directives: {
            'img-src': ["'self'", 'data:', 'blob:', 'https://market-assets.strapi.io', ...storage],
            'media-src': ["'self'", 'data:', 'blob:', ...storage],
          },
        },
      },
    },
    'strapi::cors',
    'strapi::poweredBy',
    'strapi::query',
    'strapi::body',
    'strapi::session',
    'strapi::favicon',
    'strapi::public',
  ];
};
