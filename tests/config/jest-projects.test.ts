/** Every test file of the repository runs in exactly one of jest.config.js's projects: none is left out. */
import fs from 'fs';
import path from 'path';
import micromatch from 'micromatch';

const ROOT = path.join(__dirname, '..', '..');
const config = require(path.join(ROOT, 'jest.config.js')) as { projects: Array<{ displayName: string; testMatch: string[] }> };

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

test('each test file matches one project', () => {
  const files = [...testFiles(path.join(ROOT, 'tests')), ...testFiles(path.join(ROOT, 'plugins', 'image-api', 'tests'))];
  expect(files.length).toBeGreaterThan(60);
  const owners = files.map((file) => ({
    file: path.relative(ROOT, file),
    projects: config.projects.filter((project) => micromatch.isMatch(file, project.testMatch.map((glob) => glob.replace('<rootDir>', ROOT)))).map((project) => project.displayName),
  }));
  expect(owners.filter(({ projects }) => projects.length !== 1)).toEqual([]);
});
