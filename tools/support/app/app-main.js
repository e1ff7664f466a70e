// The app in a process of its own (app-process.js starts it): boots the compiled app with the
// environment it was given, listens on PORT, prints "READY".

(async () => {
  const { createStrapi } = require('@strapi/strapi');
  const { APP_DIR: appDir, appDistDir } = require('./paths');
  const strapi = await createStrapi({ appDir, distDir: appDistDir() }).load();
  await strapi.listen();
  process.stdout.write('READY\n');
  // SIGTERM and SIGINT: createStrapi() destroys Strapi and exits on them already.
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
