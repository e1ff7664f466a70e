/**
 * package-lock.json in step with the manifests, so `npm install` on a fresh clone has nothing to
 * write (it rewrites the lockfile's copy of a workspace's or the root's manifest when they differ:
 * its engines, its dependencies). Dependencies are pinned exactly, and the lockfile holds each at
 * that version.
 */
import fs from 'fs';
import path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
const lock = read('package-lock.json');

/** What npm copies from a manifest into the lockfile's entry for it. */
const FIELDS = ['name', 'version', 'license', 'workspaces', 'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'engines', 'bin'];
const normalizedBin = (bin: Record<string, string> | undefined) =>
  bin && Object.fromEntries(Object.entries(bin).map(([name, file]) => [name, file.replace(/^\.\//, '')]));

/** [the lockfile's entry, its manifest]: the app, and the plugin's workspace. */
const manifests = [
  ['', 'package.json'],
  ['plugins/image-api', 'plugins/image-api/package.json'],
] as const;

test.each(manifests)('the lockfile entry "%s" is what %s says', (entry, file) => {
  const manifest = read(file);
  const locked = lock.packages[entry];
  for (const field of FIELDS) {
    const expected = field === 'bin' ? normalizedBin(manifest.bin) : manifest[field];
    const actual = field === 'bin' ? normalizedBin(locked[field]) : locked[field];
    expect({ field, value: actual }).toEqual({ field, value: expected });
  }
});

test.each(manifests)('every dependency of "%s" (%s) is pinned, and locked at that version', (entry, file) => {
  const manifest = read(file);
  const folder = entry === '' ? '' : `${entry}/`;
  for (const kind of ['dependencies', 'devDependencies'] as const) {
    for (const [name, version] of Object.entries<string>(manifest[kind] ?? {})) {
      expect({ name, version }).toEqual({ name, version: expect.stringMatching(/^\d+\.\d+\.\d+(-[\w.]+)?$/) });
      const locked = lock.packages[`${folder}node_modules/${name}`] ?? lock.packages[`node_modules/${name}`];
      // A workspace (strapi-plugin-image-api) is a link to its folder.
      const lockedVersion = locked?.link ? lock.packages[locked.resolved]?.version : locked?.version;
      expect({ name, locked: lockedVersion }).toEqual({ name, locked: version });
    }
  }
});
