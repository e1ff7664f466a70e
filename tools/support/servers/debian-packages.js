'use strict';
/** Installs the Debian packages a part of the cluster needs, when its command is missing. */
const { execFileSync } = require('child_process');

const has = (command) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

let updated = false;

/** `commands`: what must be on PATH afterwards; `packages`: what provides them. */
function ensurePackages(commands, packages, log) {
  if (commands.every(has)) return;
  log(`installing ${packages.join(', ')} (Debian packages)`);
  const run = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!updated) run(['update', '-qq']);
  updated = true;
  run(['install', '-y', '-qq', '--no-install-recommends', ...packages]);
  const missing = commands.filter((command) => !has(command));
  if (missing.length) throw new Error(`still missing after installing ${packages.join(', ')}: ${missing.join(', ')}`);
}

module.exports = { ensurePackages };
