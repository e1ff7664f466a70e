// Compiles the app (config, src) once per run into a folder of the run's own (TEST_DIST_DIR), so a
// test run beside `npm run develop` never rewrites the dist/ that server and the key CLI read
// (docs/development.md, "Tests beside a running server"). The browser suite serves the admin panel
// `strapi build` put in dist/build, so it boots from dist/ as `npm start` does. The plugin is built by
// `pretest` (its build leaves unchanged files alone).
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { APP_DIR, TEST_DIST_DIR } = require('../../tools/support/app/paths');
const { makeBootedTemplate } = require('../../tools/support/app/booted-template');
const { testDb } = require('../../tools/support/app/scratch-db');

module.exports = async (_globalConfig, projectConfig) => {
  // The OpenAPI check's tally is per run (tests/helpers/openapi-setup.ts).
  fs.rmSync(path.join(__dirname, '..', '.artifacts', 'openapi-coverage'), { recursive: true, force: true });
  // The app's .env, for every test file and worker (they inherit this environment): Strapi reads it
  // when first required, after a test file has saved the environment it restores on stop.
  if (fs.existsSync(path.join(APP_DIR, '.env'))) process.loadEnvFile(path.join(APP_DIR, '.env'));
  const project = projectConfig?.displayName?.name ?? projectConfig?.displayName;
  if (project === 'browser') {
    const { compileStrapi } = require('@strapi/strapi');
    await compileStrapi({ appDir: APP_DIR });
    return;
  }
  // What compileStrapi does (the app's tsconfig.json, incremental), into another folder.
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', APP_DIR, '--outDir', TEST_DIST_DIR], { cwd: APP_DIR, stdio: 'inherit' });
  // Test files and the processes they start (tools/support/app/app-main.js, scripts/apikey.js) boot from it.
  process.env.TEST_APP_DIST = TEST_DIST_DIR;
  // The API suite's files boot on copies of a database the app has booted on once
  // (tools/support/app/booted-template.js); global-teardown.js drops it.
  if (project === 'api') globalThis.__bootedTemplate = await makeBootedTemplate(testDb(), { NODE_ENV: 'test', LOG_LEVEL: 'warn' });
};
