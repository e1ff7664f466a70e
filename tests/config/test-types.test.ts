/**
 * The tests are TypeScript checked as strictly as the plugin's server code (tsconfig.tests.json):
 * Jest's transform (swc) strips types without checking them, so a test calling a helper or a service
 * with the wrong shape would otherwise only fail, if at all, at run time.
 */
import { execFileSync } from 'child_process';
import path from 'path';

const ROOT = path.join(__dirname, '..', '..');

test('tests/ and the plugin\'s tests type-check (tsconfig.tests.json)', () => {
  let output = '';
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.tests.json')], { cwd: ROOT, encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  expect(output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
});
