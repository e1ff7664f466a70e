#!/usr/bin/env node
// The browser test serves the built admin panel: build it when it is missing or older than the
// plugin's admin sources or the app's own admin customisation (src/admin).
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const built = path.join(root, 'dist', 'build', 'index.html');
const sources = [path.join(root, 'plugins', 'image-api', 'dist', 'admin'), path.join(root, 'src', 'admin')];

const newest = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(max, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }, 0);

if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < Math.max(...sources.map(newest))) {
  console.error('ensure-admin-build: building the admin panel');
  execFileSync('npx', ['strapi', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
}
