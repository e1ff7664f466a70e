import fs from 'fs';
import os from 'os';
import path from 'path';
import { BufferPool, sizeClass } from '../../server/src/http/buffer-pool';
import { openRequestScope } from '../../server/src/http/request-scope';
import { createTempFolders } from '../../server/src/http/temp-folders';

const pool = () => new BufferPool({ minBytes: 1024, maxBytes: 1 << 20, maxIdleBytes: 1 << 20 });
let tmpRoot: string;
beforeEach(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'request-scope-test-'));
});
afterEach(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

test('what the scope lends goes back to the pool when it ends', async () => {
  const buffers = pool();
  const scope = openRequestScope({ pool: buffers, folders: createTempFolders(), tmpRoot });
  expect(scope.borrow(100)).toHaveLength(100);
  expect(scope.borrow(5000)).toHaveLength(5000);
  expect(buffers.idleSize).toBe(0);
  await scope.end();
  expect(buffers.idleSize).toBe(1024 + sizeClass(5000));
});

test('the temp folder is made once, on first use, and removed when the scope ends', async () => {
  const scope = openRequestScope({ pool: pool(), folders: createTempFolders(), tmpRoot });
  expect(fs.readdirSync(tmpRoot)).toEqual([]);
  const dir = await scope.tempDir();
  expect(await scope.tempDir()).toBe(dir);
  fs.writeFileSync(path.join(dir, 'download'), 'x');
  await scope.end();
  expect(fs.readdirSync(tmpRoot)).toEqual([]);
});

test('a scope whose temp folder could not be made still ends cleanly', async () => {
  const file = path.join(tmpRoot, 'a-file');
  fs.writeFileSync(file, 'x');
  const scope = openRequestScope({ pool: pool(), folders: createTempFolders(), tmpRoot: path.join(file, 'below') });
  await expect(scope.tempDir()).rejects.toThrow();
  await expect(scope.end()).resolves.toBeUndefined();
});
