// Compiles the app (config, src) to dist/ once per run; the plugin is built by `pretest`.
const path = require('path');

module.exports = async () => {
  const { compileStrapi } = require('@strapi/strapi');
  await compileStrapi({ appDir: path.join(__dirname, '..', '..') });
};
