// The benchmarked server (started by servers.js): the production app on the environment it was given (a scratch SQLite
// database, rate limits off). Creates what the bench needs to call it (an image-API key and a
// full-access Strapi API token for the stock upload), then prints them as one JSON line.
'use strict';

const path = require('path');

(async () => {
  const { createStrapi } = require('@strapi/strapi');
  const appDir = path.join(__dirname, '..');
  const strapi = await createStrapi({ appDir, distDir: path.join(appDir, 'dist'), serveAdminPanel: false }).load();
  await strapi.listen();
  const { key } = await strapi.plugin('image-api').service('api-keys').create({ name: 'bench', rateLimit: 'off' });
  const token = await strapi.service('admin::api-token').create({ name: 'bench', type: 'full-access', lifespan: null });
  process.stdout.write(`${JSON.stringify({ ready: true, key, token: token.accessKey, pid: process.pid })}\n`);
  const stop = async () => {
    await strapi.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
