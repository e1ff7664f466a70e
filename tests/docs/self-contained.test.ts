/**
 * The repository stands on its own: code, comments and docs point at code and docs of the
 * repository (or public references), never at the team's working papers outside it (the upload
 * contract's sections, a path on the machine it was written on), which a reader of the package or
 * of a clone does not have.
 */
import fs from 'fs';
import path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const ROOTS = ['README.md', '.env.example', 'docs', 'config', 'src', 'scripts', 'tools', 'tests', 'plugins/image-api/README.md', 'plugins/image-api/server', 'plugins/image-api/shared', 'plugins/image-api/admin', 'plugins/image-api/bin', 'plugins/image-api/tests', 'plugins/image-api/scripts'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|json|md|example|sh)$/;
const OUTSIDE = [/contract §/, /\/work\/(shared|main)\b/, /\.\.\/shared\/(spec|notes)\//];

function files(relative: string): string[] {
  const full = path.join(ROOT, relative);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [relative];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'screenshots' ? [] : entry.isDirectory() ? files(path.join(relative, entry.name)) : TEXT.test(entry.name) || relative === '.env.example' ? [path.join(relative, entry.name)] : []
  );
}

test('no file points outside the repository (the contract\'s sections, the machine\'s working folders)', () => {
  const self = path.relative(ROOT, __filename);
  const found = ROOTS.flatMap(files)
    .filter((file) => file !== self)
    .flatMap((file) =>
      fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').flatMap((line, i) => (OUTSIDE.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : []))
    );
  expect(found).toEqual([]);
});
