#!/usr/bin/env node
/**
 * The image API's command line, for any Strapi app that installs the plugin. Run it in the app's
 * folder (with the app's environment: its .env is read):
 *
 *   npx strapi-image-api keys create --name NAME [--description TEXT] [--contact TEXT] [--owner EMAIL]
 *                                    [--rate-limit SPEC] [--expires DATE|Nd] [--duplicates store|reuse|refuse]
 *                                    [--quota-images N] [--quota-bytes SIZE]   the key, alone, on the last line
 *   npx strapi-image-api keys list [--json]
 *   npx strapi-image-api keys revoke NAME
 *   npx strapi-image-api keys regenerate NAME
 *   npx strapi-image-api keys client-config sharex|picgo|curl NAME > FILE
 *
 * A TypeScript app is compiled first (Strapi's own compiler, into its dist folder), as `strapi
 * start` would need it. Only the command's output goes to stdout; the app's logs are held back, and
 * printed to stderr if the command fails (all of them as they come: STRAPI_IMAGE_API_VERBOSE=1).
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { holdLogs, runKeys, USAGE } = require('./keys');

async function main(argv) {
  const [group, ...rest] = argv;
  if (group === '--help' || group === '-h' || (group === 'keys' && (rest.includes('--help') || rest.includes('-h')))) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (group !== 'keys') {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  const appDir = process.cwd();
  let distDir = appDir;
  if (fs.existsSync(path.join(appDir, 'tsconfig.json'))) {
    const strapi = require(require.resolve('@strapi/strapi', { paths: [appDir] }));
    await holdLogs(() => strapi.compileStrapi({ appDir }));
    distDir = path.join(appDir, 'dist');
  }
  return runKeys(rest, { appDir, distDir });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`strapi-image-api: ${error.message}\n`);
    process.exit(1);
  }
);
