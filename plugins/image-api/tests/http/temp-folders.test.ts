import fs from 'fs';
import os from 'os';
import path from 'path';
import { createTempFolders, DEFAULT_TMP_ROOT, sweepTempFolders, tempRoot } from '../../server/src/http/temp-folders';

let root: string;
beforeEach(() => {
  root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'temp-folders-test-')), 'root');
});
afterEach(() => fs.rmSync(path.dirname(root), { recursive: true, force: true }));

test('the root defaults to a folder of its own in the OS temp folder', () => {
  expect(tempRoot(null)).toBe(DEFAULT_TMP_ROOT);
  expect(tempRoot('/srv/tmp')).toBe('/srv/tmp');
});

test('each request gets a new folder under the root, made on demand, removed on request', async () => {
  const folders = createTempFolders();
  const [a, b] = await Promise.all([folders.make(root), folders.make(root)]);
  expect(a).not.toBe(b);
  expect(path.dirname(a)).toBe(root);
  expect(path.basename(a)).toMatch(/^req-/);
  await folders.remove(a);
  expect(fs.readdirSync(root)).toEqual([path.basename(b)]);
});

test('a root removed meanwhile is made again', async () => {
  const folders = createTempFolders();
  await folders.make(root);
  fs.rmSync(root, { recursive: true });
  expect(fs.existsSync(await folders.make(root))).toBe(true);
});

test('the sweep removes request folders older than the age, and nothing else', async () => {
  fs.mkdirSync(root, { recursive: true });
  const old = path.join(root, 'req-old');
  fs.mkdirSync(old);
  fs.writeFileSync(path.join(old, 'part'), 'x');
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(old, past, past);
  fs.mkdirSync(path.join(root, 'req-young'));
  fs.mkdirSync(path.join(root, 'not-ours'));
  fs.utimesSync(path.join(root, 'not-ours'), past, past);
  expect(await sweepTempFolders(root, 30_000)).toBe(1);
  expect(fs.readdirSync(root).sort()).toEqual(['not-ours', 'req-young']);
  expect(await sweepTempFolders(path.join(root, 'missing'), 0)).toBe(0);
});
