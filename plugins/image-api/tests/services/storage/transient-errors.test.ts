import { isTransient, retryTransient } from '../../../server/src/services/storage/transient-errors';

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

test('a deadlock is retried, up to three attempts in all', async () => {
  let calls = 0;
  const deadlock = Object.assign(new Error('Deadlock found'), { errno: 1213 });
  await expect(retryTransient(async () => (++calls < 3 ? Promise.reject(deadlock) : 'done'))).resolves.toBe('done');
  expect(calls).toBe(3);
  calls = 0;
  await expect(
    retryTransient(async () => {
      calls++;
      throw deadlock;
    })
  ).rejects.toBe(deadlock);
  expect(calls).toBe(3);
});

test('anything else fails at once', async () => {
  let calls = 0;
  const duplicate = Object.assign(new Error('Duplicate entry'), { errno: 1062 });
  await expect(
    retryTransient(async () => {
      calls++;
      throw duplicate;
    })
  ).rejects.toBe(duplicate);
  expect(calls).toBe(1);
});
