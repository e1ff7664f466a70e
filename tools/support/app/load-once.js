// Boots the compiled app once with the environment it was given, then shuts it down: what a first
// boot writes to its database is there (booted-template.js).

(async () => {
  const { createStrapi } = require('@strapi/strapi');
  const { APP_DIR: appDir, appDistDir } = require('./paths');
  const strapi = await createStrapi({ appDir, distDir: appDistDir() }).load();
  await strapi.destroy();
  // A pool's idle timers must not keep the process waiting.
  process.exit(0);
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
