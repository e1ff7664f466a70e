import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { applyHeapGrowth } from '../../server/src/operations/heap-growth';

/** The growth factor V8 used for the old generation's next limit, after one full collection in a fresh node. */
function growthFactorAfter(setup: string): number {
  const script = `${setup}; const keep = []; for (let i = 0; i < 3e5; i++) keep.push({ i }); globalThis.gc();`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--trace-gc-verbose', '-e', script], { encoding: 'utf8' });
  // V8 12 (Node 20, 22): "[HeapController] Limit: old size: 69082 KB, new limit: 119731 KB (1.5)";
  // V8 13 (Node 24, 26) names the factor it applies on its own line: "[HeapController] factor 1.5 based on ..."
  const limits = [...out.matchAll(/\[HeapController\] Limit: .*\(([\d.]+)\)$/gm)];
  const applied = limits.length > 0 ? limits : [...out.matchAll(/\[HeapController\] factor ([\d.]+) based on/gm)];
  const factors = applied.map((m) => Number(m[1]));
  expect(factors.length).toBeGreaterThan(0);
  return factors[factors.length - 1];
}

afterEach(() => jest.restoreAllMocks());

test('null leaves V8 alone', () => {
  const set = jest.spyOn(v8, 'setFlagsFromString');
  applyHeapGrowth(null);
  expect(set).not.toHaveBeenCalled();
});

test('a percentage becomes the fixed factor V8 applies from the next collection on, set at run time', () => {
  const set = jest.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
  applyHeapGrowth(50);
  expect(set).toHaveBeenCalledTimes(1);
  const flag = set.mock.calls[0][0];
  // The same call, made in a running process, changes the factor V8 chooses.
  const withFlag = growthFactorAfter(`require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`);
  expect(withFlag).toBe(1.5);
  expect(growthFactorAfter('')).not.toBe(1.5);
});
