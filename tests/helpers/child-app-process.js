// A second instance of the app in its own process, for tests of state shared between instances.
// Boots the compiled app with the environment it was given, listens on PORT, prints "READY".
const path = require('path');

(async () => {
  const { createStrapi } = require('@strapi/strapi');
  const appDir = path.join(__dirname, '..', '..');
  const strapi = await createStrapi({ appDir, distDir: path.join(appDir, 'dist') }).load();
  await strapi.listen();
  process.stdout.write('READY\n');
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
