import { isTransient, retryTransient } from '../../server/src/database/transient-errors';

test.each([
  [{ errno: 1213, code: 'ER_LOCK_DEADLOCK' }, true],
  [{ code: '40P01' }, true],
  [{ code: '40001' }, true],
  [{ errno: 1062, code: 'ER_DUP_ENTRY' }, false],
  [{ code: '23505' }, false],
  [new Error('disk full'), false],
  [undefined, false],
])('%j is transient: %s', (error, transient) => {
  expect(isTransient(error)).toBe(transient);
});

/** Work that fails with `error` on each of its first `failures` calls, then succeeds. */
function flaky(error: Error, failures = Infinity) {
  const work = { calls: 0, run: async () => (++work.calls <= failures ? Promise.reject(error) : 'done') };
  return work;
}

const deadlock = Object.assign(new Error('Deadlock found'), { errno: 1213 });

test('a deadlock is retried, up to three attempts in all', async () => {
  const twice = flaky(deadlock, 2);
  await expect(retryTransient(twice.run)).resolves.toBe('done');
  expect(twice.calls).toBe(3);
  const always = flaky(deadlock);
  await expect(retryTransient(always.run)).rejects.toBe(deadlock);
  expect(always.calls).toBe(3);
});

test('anything else fails at once', async () => {
  const duplicate = flaky(Object.assign(new Error('Duplicate entry'), { errno: 1062 }));
  await expect(retryTransient(duplicate.run)).rejects.toThrow('Duplicate entry');
  expect(duplicate.calls).toBe(1);
});
