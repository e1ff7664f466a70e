import { settleAll } from '../../server/src/images/settle-all';

test('settleAll(): resolves in order; on a failure, waits for the others to finish before rejecting', async () => {
  await expect(settleAll<[number, string]>([Promise.resolve(1), Promise.resolve('a')])).resolves.toEqual([1, 'a']);
  let slowDone = false;
  const slow = new Promise<number>((resolve) => setTimeout(() => { slowDone = true; resolve(2); }, 50));
  await expect(settleAll<[number, number]>([Promise.reject(new Error('bad')), slow])).rejects.toThrow('bad');
  expect(slowDone).toBe(true);
});
