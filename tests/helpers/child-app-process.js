// A second instance of the app in its own process, for tests of state shared between instances.
// Boots the compiled app with the environment it was given, listens on PORT, prints "READY".
const path = require('path');

(async () => {
  const { createStrapi } = require('@strapi/strapi');
  const appDir = path.join(__dirname, '..', '..');
  const strapi = await createStrapi({ appDir, distDir: path.join(appDir, 'dist') }).load();
  await strapi.listen();
  process.stdout.write('READY\n');
  // SIGTERM and SIGINT: createStrapi() destroys Strapi and exits on them already.
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
