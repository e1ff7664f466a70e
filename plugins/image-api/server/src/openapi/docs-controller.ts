/**
 * The API's own description: the OpenAPI document (GET /api/1/openapi.json) and the docs page that
 * renders it (GET /api/1/docs), with Swagger UI served from this app (swagger-ui-dist): no CDN, the
 * page works offline. Its scripts are files, not inline, so Strapi's CSP (script-src 'self') holds.
 */
import fs from 'fs';
import path from 'path';
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { openApiDocument } from './document';
import { answerError } from '../protocol/answers';
import { errors } from '../http/api-error';
import { getConfig, getService } from '../get-service';

/** The files the page loads, by the name it loads them by (a Map: `constructor` names no file). */
const ASSETS = new Map<string, { file: () => string; type: string }>([
  ['swagger-ui.css', { file: () => path.join(swaggerUiDir(), 'swagger-ui.css'), type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: () => path.join(swaggerUiDir(), 'swagger-ui-bundle.js'), type: 'application/javascript; charset=utf-8' }],
]);

function swaggerUiDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

const page = (base: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Image API: reference</title>
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="docs" data-document="${base}/openapi.json"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/init.js"></script>
</body>
</html>
`;

// No validator badge (it calls a server on the internet); the document's URL comes from the page.
const INIT = `window.addEventListener('load', function () {
  var root = document.getElementById('docs');
  window.ui = SwaggerUIBundle({ url: root.getAttribute('data-document'), dom_id: '#docs', deepLinking: true, validatorUrl: null });
});
`;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** `/api/1`, whatever the REST prefix. */
  const base = () => `${(strapi.config.get('api.rest.prefix') as string) ?? '/api'}/1`;

  /** The document as sent, for the options it was built from. */
  let built: { options: string; json: string } | undefined;

  return {
    // Built once for the running options and kept as text: building it costs milliseconds of the one
    // JavaScript thread, and anyone may ask for it (a flood of it once held keyed uploads back by
    // seconds). The options it depends on are compared on every request, so it always says what runs.
    document(ctx: Context) {
      const config = getConfig(strapi);
      const options = {
        publicUrl: getService(strapi, 'public-url').base(),
        imgbbPath: config.imgbbPath,
        transformPath: config.transformPath,
        cacheMaxAgeSeconds: config.cacheMaxAgeSeconds,
        maxBytes: config.maxBytes,
        minExpiration: config.minExpiration,
        maxExpiration: config.maxExpiration,
      };
      const key = JSON.stringify(options);
      if (built?.options !== key) built = { options: key, json: JSON.stringify(openApiDocument(options)) };
      ctx.type = 'application/json; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = built.json;
    },

    page(ctx: Context) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page(base());
    },

    asset(ctx: Context) {
      const name = String(ctx.params.file);
      const asset = ASSETS.get(name);
      if (name !== 'init.js' && !asset) {
        answerError(ctx, errors.notFound(), 'json');
        return;
      }
      ctx.set('Cache-Control', 'public, max-age=86400');
      if (!asset) {
        ctx.type = 'application/javascript; charset=utf-8';
        ctx.body = INIT;
        return;
      }
      ctx.type = asset.type;
      ctx.body = fs.createReadStream(asset.file());
    },
  };
};
