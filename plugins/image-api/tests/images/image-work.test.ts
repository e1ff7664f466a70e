import os from 'os';
import sharp from 'sharp';
import { createImageWorkLimit } from '../../server/src/images/image-work';

const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
afterAll(() => {
  sharp.concurrency(0); // back to sharp's default for other tests in this worker
  sharp.cache(true);
});

test('by default one image per core, the cores shared out among them (at least one libvips thread each)', () => {
  createImageWorkLimit(null, null);
  expect(sharp.concurrency()).toBe(1);
  createImageWorkLimit(1, null);
  expect(sharp.concurrency()).toBe(cores);
  createImageWorkLimit(cores * 4, null);
  expect(sharp.concurrency()).toBe(1);
  createImageWorkLimit(null, 3);
  expect(sharp.concurrency()).toBe(3);
  expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, items: { max: 0 } });
});

test('no more than `concurrency` pieces of work run at once; the rest wait their turn', async () => {
  const limit = createImageWorkLimit(2, null);
  let running = 0;
  let peak = 0;
  const work = () =>
    limit(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
      return running;
    });
  await Promise.all(Array.from({ length: 7 }, work));
  expect(peak).toBe(2);
});
