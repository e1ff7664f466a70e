/**
 * `npm run typecheck`, in every test run: the tests are TypeScript checked as strictly as the
 * plugin's server code (tsconfig.tests.json), and the server and the admin panel against their own
 * tsconfigs. Jest's transform (swc) strips types without checking them, so a test calling a helper
 * or a service with the wrong shape would otherwise only fail, if at all, at run time.
 */
import { execFileSync } from 'child_process';
import path from 'path';

const ROOT = path.join(__dirname, '..', '..');

test('npm run typecheck finds nothing: the tests, the plugin\'s server and its admin panel', () => {
  let output = '';
  try {
    execFileSync('npm', ['run', '--silent', 'typecheck'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    output = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? error}`;
  }
  expect(output.split('\n').filter((line) => line.includes('error TS') || line.includes('ERR'))).toEqual([]);
}, 240_000);
