// The image API parses the bodies of its own routes itself (sized for 10 MB images); every other
// route keeps Strapi's body parser with the settings below.
import { storageOrigins } from './storage/s3';

/** The origin of the app's public URL (config/server.ts, which refuses a missing one in production). */
function appOrigin(env): string {
  const url = env('PUBLIC_URL') || `http://localhost:${env.int('PORT', 1337)}`;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

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
    {
      // Every route but the image API's own (which answers CORS per IMAGE_API_CORS_ORIGINS): the
      // admin panel's among them. Strapi's default echoes any Origin with credentials allowed, so a
      // page on any origin the browser counts as same-site (another subdomain, the bucket's host)
      // could send the admin's refresh cookie to POST /admin/access-token and read the token.
      name: 'strapi::cors',
      config: { origin: env.array('CORS_ORIGINS', [appOrigin(env)]) },
    },
    'strapi::poweredBy',
    'strapi::query',
    'strapi::body',
    'strapi::session',
    'strapi::favicon',
    'strapi::public',
  ];
};
