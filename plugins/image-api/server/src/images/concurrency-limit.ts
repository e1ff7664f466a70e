/**
 * At most `concurrency` jobs at once; the others wait their turn, in order. It replaces p-limit 3 for
 * the image work: p-limit's queue (yocto-queue 0.1.0) keeps a pointer to the last job it ever queued,
 * and that job's closure kept its upload's bytes and, through the promise it resolved, its variants:
 * a 77 MP BMP's 17 MB PNG and its 16 MB body stayed in memory until the next image (measured on a
 * heap snapshot, tests/faults/attacks.test.ts). Here a job is forgotten as soon as it starts.
 */
export type ConcurrencyLimit = <T>(work: () => Promise<T>) => Promise<T>;

export function concurrencyLimit(concurrency: number): ConcurrencyLimit {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    running--;
    waiting.shift()?.();
  };
  return <T>(work: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        running++;
        // A job that throws at once rejects like one that fails later.
        Promise.resolve()
          .then(work)
          .then(resolve, reject)
          .finally(next);
      };
      if (running < concurrency) start();
      else waiting.push(start);
    });
}
