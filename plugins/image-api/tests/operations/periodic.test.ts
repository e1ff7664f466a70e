import { periodic } from '../../server/src/operations/periodic';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a run under way is joined, not doubled', async () => {
  let runs = 0;
  const job = periodic(async (n: number) => {
    runs++;
    await sleep(30);
    return n * 2;
  }, () => undefined);
  const [a, b] = await Promise.all([job.run(1), job.run(5)]);
  expect([a, b, runs]).toEqual([2, 2, 1]);
  expect(await job.run(3)).toBe(6);
  expect(runs).toBe(2);
});

test('start() runs it every interval with fresh arguments; a failure is reported and the next run goes on; stop() waits for a run under way', async () => {
  const seen: number[] = [];
  const errors: unknown[] = [];
  let tick = 0;
  let finished = 0;
  const job = periodic(async (n: number) => {
    seen.push(n);
    if (n === 1) throw new Error('first fails');
    await sleep(40);
    finished++;
  }, (error) => errors.push(error));
  job.start(20, () => [++tick]);
  await sleep(75);
  await job.stop();
  const count = seen.length;
  expect(seen[0]).toBe(1);
  expect(count).toBeGreaterThanOrEqual(2);
  expect(errors).toHaveLength(1);
  expect(finished).toBe(count - 1); // stop() waited for the last run
  await sleep(60);
  expect(seen.length).toBe(count);
});
