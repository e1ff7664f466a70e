#!/usr/bin/env node
/**
 * `npm run --silent apikey -- <command>`: the plugin's key CLI (plugins/image-api/bin: `npx
 * strapi-image-api keys <command>` in any app) for this app, after making sure the plugin and the
 * app's config are built. Commands: create, list, revoke, regenerate, client-config (see the bin).
 */
'use strict';

const path = require('path');
const { APP_DIR, ensureBuilt } = require('../tools/support/app/ensure-built');
const { runKeys } = require('../plugins/image-api/bin/keys');

ensureBuilt()
  .then(() => runKeys(process.argv.slice(2), { appDir: APP_DIR, distDir: path.join(APP_DIR, 'dist') }))
  .then(
    // Strapi is shut down by now; what is left (a pool's idle timers) must not keep the CLI waiting.
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`apikey: ${error.message}\n`);
      process.exit(1);
    }
  );
