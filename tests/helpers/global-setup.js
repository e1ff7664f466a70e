// Compiles the app (config, src) to dist/ once per run; the plugin is built by `pretest`.
const path = require('path');

module.exports = async () => {
  // The OpenAPI check's tally is per run (tests/helpers/openapi-setup.ts).
  require('fs').rmSync(path.join(__dirname, '..', '.artifacts', 'openapi-coverage'), { recursive: true, force: true });
  const { compileStrapi } = require('@strapi/strapi');
  await compileStrapi({ appDir: path.join(__dirname, '..', '..') });
};
