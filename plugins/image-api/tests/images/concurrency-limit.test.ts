import v8 from 'v8';
import vm from 'vm';
import { concurrencyLimit } from '../../server/src/images/concurrency-limit';

// The collector, for this test (V8's flag is read when a context asks for `gc`).
v8.setFlagsFromString('--expose_gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('at most `concurrency` jobs at once, the others in the order they came', async () => {
  const limit = concurrencyLimit(2);
  let running = 0;
  let peak = 0;
  const started: number[] = [];
  const job = (n: number) =>
    limit(async () => {
      started.push(n);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return n;
    });
  expect(await Promise.all([1, 2, 3, 4, 5, 6].map(job))).toEqual([1, 2, 3, 4, 5, 6]);
  expect(peak).toBe(2);
  expect(started).toEqual([1, 2, 3, 4, 5, 6]);
});

test('a job that fails, at once or later, rejects its own promise only; the next ones run', async () => {
  const limit = concurrencyLimit(1);
  const failsAtOnce = limit(() => {
    throw new Error('at once');
  });
  const failsLater = limit(async () => {
    await turn();
    throw new Error('later');
  });
  const next = limit(async () => 'next');
  await expect(failsAtOnce).rejects.toThrow('at once');
  await expect(failsLater).rejects.toThrow('later');
  await expect(next).resolves.toBe('next');
});

// p-limit 3 kept its last job (and, through the promise it resolved, the job's result) until the
// next job came: a 77 MP BMP's PNG and body, 33 MB, after every batch.
test('a job, what it held and what it returned are forgotten once it has run', async () => {
  const limit = concurrencyLimit(1);
  const held: WeakRef<object>[] = [];
  await (async () => {
    const input = { bytes: Buffer.alloc(1024) };
    held.push(new WeakRef(input));
    const output = await limit(async () => ({ from: input.bytes.length, result: Buffer.alloc(1024) }));
    held.push(new WeakRef(output));
  })();
  await turn();
  collectGarbage();
  expect(held.map((ref) => ref.deref())).toEqual([undefined, undefined]);
});
