'use strict';
// Builds what booting the compiled app needs, when a fresh clone has not built it yet: secrets in
// .env, the plugin's server, and the app's compiled config (used by the apikey CLI and the bench).

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const APP_DIR = path.join(__dirname, '..');

async function ensureBuilt() {
  require('./ensure-env-lib').ensureEnv();
  if (!fs.existsSync(path.join(APP_DIR, 'plugins/image-api/dist/server/index.js'))) {
    execFileSync('npm', ['run', '--silent', 'build:plugin'], { cwd: APP_DIR, stdio: ['ignore', 2, 2] });
  }
  if (!fs.existsSync(path.join(APP_DIR, 'dist/config/plugins.js'))) {
    const { compileStrapi } = require('@strapi/strapi');
    await compileStrapi({ appDir: APP_DIR });
  }
}

module.exports = { APP_DIR, ensureBuilt };
