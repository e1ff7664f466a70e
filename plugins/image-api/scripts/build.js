#!/usr/bin/env node
/**
 * Builds `dist` (server and admin) without a moment where it is missing or half-written: both
 * compilers write into a staging folder, then each file is moved into `dist` by rename (atomic per
 * file), and files no longer built are removed last. A Strapi process or a test suite reading `dist`
 * while `npm run develop` or `npm test` rebuilds it (both build first) sees the old files or the new
 * ones, never none; files that come out the same are not touched. A failed build leaves `dist` as it was.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const tsc = require.resolve('typescript/bin/tsc');

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir, prefix = '') {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(prefix, entry.name);
    return entry.isDirectory() ? filesUnder(path.join(dir, entry.name), relative) : [relative];
  });
}

/** Removes the folders under `dir` left empty (deepest first). */
function removeEmptyFolders(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = path.join(dir, entry.name);
    removeEmptyFolders(sub);
    if (fs.readdirSync(sub).length === 0) fs.rmdirSync(sub);
  }
}

const staging = fs.mkdtempSync(path.join(root, '.dist-staging-'));
try {
  const compile = (project, outDir) =>
    execFileSync(process.execPath, [tsc, '-p', path.join(root, project), '--outDir', outDir], { cwd: root, stdio: 'inherit' });
  compile('tsconfig.server.json', staging);
  compile('tsconfig.admin.json', path.join(staging, 'admin'));

  const built = filesUnder(staging);
  for (const file of built) {
    const target = path.join(dist, file);
    // A file built as it was is left alone: a rebuild of unchanged sources (every `npm test` beside
    // a running `npm run develop`) writes nothing into the dist/ that server reads.
    if (fs.existsSync(target) && fs.readFileSync(target).equals(fs.readFileSync(path.join(staging, file)))) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(path.join(staging, file), target);
  }
  const current = new Set(built);
  for (const file of filesUnder(dist)) if (!current.has(file)) fs.rmSync(path.join(dist, file));
  removeEmptyFolders(dist);
} catch (error) {
  process.exitCode = 1;
  if (error.status === undefined) console.error(error);
} finally {
  fs.rmSync(staging, { recursive: true, force: true });
}
