// Plugins of this app. The image API reads its IMAGE_API_* variables itself (.env.example lists
// them; plugins/image-api/server/src/config/environment.ts), so its entry here only sets what this
// app does differently from the plugin's defaults.
import { uploadPluginConfig } from './storage/s3';

// What editors and authors may upload to the Media Library (Strapi checks the declared type, the
// extension and the bytes: docs/security.md, "Serving"). Raster images, video and audio: nothing a
// browser runs. The image API's own uploads are checked by the API itself, not by these lists.
const allowedTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'video/*', 'audio/*'];

// Refused even where a list above would let them in: types a browser runs as a page or a script
// (HTML, XHTML, SVG and other XML, JavaScript, MHTML web archives), and PDF, whose viewers run
// scripts of their own. Checked on the declared type and the extension before the bytes. Exact types:
// Strapi turns `*` into a regular expression without escaping the rest, so `*+xml` would not work.
const deniedTypes = [
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'application/xml',
  'text/xml',
  'text/xsl',
  'application/javascript',
  'text/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'text/ecmascript',
  'message/rfc822',
  'multipart/related',
  'application/x-mimearchive',
  'application/xslt+xml',
  'application/rss+xml',
  'application/atom+xml',
  'application/mathml+xml',
  'application/pdf',
];

export default ({ env }) => {
  const storage = uploadPluginConfig(env);
  return {
    // Where files go: local disk by default, an S3 bucket with UPLOAD_PROVIDER=aws-s3 (config/storage/s3.ts).
    upload: { config: { ...('config' in storage ? storage.config : {}), security: { allowedTypes, deniedTypes } } },
    'image-api': {
      enabled: true,
      resolve: './plugins/image-api',
      config: {
        // Not the plugin's default (V8's own heuristic): this app is an upload server, and trades some
        // heap for far fewer full collections (docs/performance.md). 0 gives V8 its heuristic back.
        heapGrowingPercent: env.int('IMAGE_API_HEAP_GROWING_PERCENT', 50) || null,
      },
    },
  };
};
