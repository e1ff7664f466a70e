#!/usr/bin/env node
/**
 * The image API's command line, for any Strapi app that installs the plugin. Run it in the app's
 * folder (with the app's environment: its .env is read):
 *
 *   npx strapi-image-api keys create --name NAME [--description TEXT] [--contact TEXT] [--owner EMAIL]
 *                                    [--rate-limit SPEC] [--expires DATE|Nd] [--duplicates store|reuse|refuse]
 *                                    [--quota-images N] [--quota-bytes SIZE]
 *                                    [--moderation off|flag|hold|refuse] [--moderation-threshold 0..1]   the key, alone, on the last line
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
const { main } = require('./keys');

/** How this was called, for the usage: `npx strapi-image-api`, `strapi-image-api` (on the PATH), or `node <file>`. */
function programName() {
  // npx runs `strapi-image-api ...` as its script (a process under `npx jest` inherits npm_command too).
  if (process.env.npm_command === 'exec' && /^'?strapi-image-api\b/.test(process.env.npm_lifecycle_script ?? '')) return 'npx strapi-image-api';
  const script = process.argv[1] ?? '';
  if (path.basename(script) === 'strapi-image-api') return 'strapi-image-api';
  return `node ${path.relative(process.cwd(), script) || script}`;
}

const appDir = process.cwd();
/** The app's compiled code: a TypeScript app is compiled first, as `strapi start` would need it. */
async function boot() {
  if (!fs.existsSync(path.join(appDir, 'tsconfig.json'))) return appDir;
  const { holdLogs } = require('./keys');
  const strapi = require(require.resolve('@strapi/strapi', { paths: [appDir] }));
  await holdLogs(() => strapi.compileStrapi({ appDir }));
  return path.join(appDir, 'dist');
}

main(process.argv.slice(2), { program: programName(), appDir, boot }).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`strapi-image-api: ${error.message}\n`);
    process.exit(1);
  }
);
