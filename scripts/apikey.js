#!/usr/bin/env node
/**
 * `npm run --silent apikey -- keys <command>`: the plugin's key CLI (plugins/image-api/bin, `npx
 * strapi-image-api keys <command>` in any app) with the same words, for this repository: it builds
 * the plugin and the app's config first when their sources are newer (tools/support/app/ensure-built.js).
 */
'use strict';

const path = require('path');
const { APP_DIR, ensureBuilt } = require('../tools/support/app/ensure-built');
const { main } = require('../plugins/image-api/bin/keys');
const { appDistDir } = require('../tools/support/app/paths');

// The usage shows the command as it was typed: through npm, or this file run by node.
const program = process.env.npm_lifecycle_event === 'apikey' ? 'npm run --silent apikey --' : `node ${path.relative(process.cwd(), __filename)}`;

main(process.argv.slice(2), {
  program,
  appDir: APP_DIR,
  // In a test run, the run's own build (tools/support/app/paths.js); else dist/, built if stale.
  boot: async () => {
    if (process.env.TEST_APP_DIST) return appDistDir();
    await ensureBuilt();
    return appDistDir();
  },
}).then(
  // Strapi is shut down by now; what is left (a pool's idle timers) must not keep the CLI waiting.
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`apikey: ${error.message}\n`);
    process.exit(1);
  }
);
