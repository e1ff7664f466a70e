'use strict';
// Builds what booting the compiled app needs, when it is missing or older than its sources: secrets
// in .env, the plugin's server, and the app's compiled config (used by the apikey CLI and the bench).
// A stale build would have the bench measure yesterday's code.

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { APP_DIR } = require('./paths');

/** Newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir) {
  if (!fs.existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return latest;
}

const builtAt = (file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);

async function ensureBuilt() {
  require('./ensure-env').ensureEnv();
  const plugin = path.join(APP_DIR, 'plugins/image-api');
  const sources = Math.max(newest(path.join(plugin, 'server/src')), newest(path.join(plugin, 'shared')));
  if (sources > newest(path.join(plugin, 'dist/server'))) {
    execFileSync('npm', ['run', '--silent', 'build:plugin'], { cwd: APP_DIR, stdio: ['ignore', 2, 2] });
  }
  if (newest(path.join(APP_DIR, 'config')) > builtAt(path.join(APP_DIR, 'dist/config/plugins.js'))) {
    const { compileStrapi } = require('@strapi/strapi');
    await compileStrapi({ appDir: APP_DIR });
  }
}

module.exports = { APP_DIR, ensureBuilt };
