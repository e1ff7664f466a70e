/**
 * `npm run build:plugin` (plugins/image-api/scripts/build.js) while something reads `dist`: `npm run
 * develop` and `npm test` both rebuild first, and the old build step deleted `dist` before compiling,
 * so a suite running beside a restarted `develop` lost the plugin under it (404s, "reading
 * 'service'"). Now every file of `dist` is there throughout a rebuild, old or new, never empty.
 */
import { execFileSync, spawn } from 'child_process';
import fs from 'fs';
import path from 'path';

const PLUGIN = path.join(__dirname, '..', '..', 'plugins', 'image-api');
const dist = (file: string) => path.join(PLUGIN, 'dist', file);
const WATCHED = ['server/src/index.js', 'server/src/api/upload-pipeline.js', 'server/src/register.js', 'admin/admin/src/index.js', 'shared/identity.js'];

test('dist is whole at every moment of a rebuild, and a stale file is gone after it', async () => {
  const stale = dist('server/src/left-from-an-old-build.js');
  fs.writeFileSync(stale, 'module.exports = 1;\n');
  const build = spawn(process.execPath, [path.join(PLUGIN, 'scripts', 'build.js')], { cwd: PLUGIN, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => build.on('exit', resolve));
  let done = false;
  void exited.then(() => (done = true));
  let looks = 0;
  const missing: string[] = [];
  while (!done) {
    for (const file of WATCHED) {
      const size = fs.statSync(dist(file), { throwIfNoEntry: false })?.size ?? 0;
      if (size === 0) missing.push(file);
    }
    looks += 1;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  expect(await exited).toBe(0);
  expect(looks).toBeGreaterThan(100);
  expect(missing).toEqual([]);
  expect(fs.existsSync(stale)).toBe(false);
  expect(fs.readdirSync(PLUGIN).filter((name) => name.startsWith('.dist-staging-'))).toEqual([]);
  // The rebuilt plugin loads.
  expect(typeof require(dist('server/src/index.js')).default?.register).toBe('function');
});

test('a rebuild of unchanged sources leaves every file of dist alone (npm test beside a running server)', () => {
  const every = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? every(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
  const before = new Map(every(path.join(PLUGIN, 'dist')).map((file) => [file, fs.statSync(file)]));
  execFileSync(process.execPath, [path.join(PLUGIN, 'scripts', 'build.js')], { cwd: PLUGIN, stdio: 'ignore' });
  const after = every(path.join(PLUGIN, 'dist'));
  expect(after.sort()).toEqual([...before.keys()].sort());
  const rewritten = after.filter((file) => {
    const [was, is] = [before.get(file)!, fs.statSync(file)];
    return was.ino !== is.ino || was.mtimeMs !== is.mtimeMs;
  });
  expect(rewritten).toEqual([]);
});
