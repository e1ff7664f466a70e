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
  const limit = createImageWorkLimit(2, null).any;
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

test('renders take one slot fewer than there are (at least one, at most all): an upload queued after many renders starts at once', async () => {
  expect(createImageWorkLimit(1, null).renderSlots).toBe(1);
  expect(createImageWorkLimit(4, null).renderSlots).toBe(3);
  expect(createImageWorkLimit(4, null, 4).renderSlots).toBe(4);
  expect(createImageWorkLimit(2, null, 9).renderSlots).toBe(2);
  const { any, render } = createImageWorkLimit(3, null);
  const gates: Array<() => void> = [];
  let renders = 0;
  let peakRenders = 0;
  const rendering = Array.from({ length: 10 }, () =>
    render(async () => {
      peakRenders = Math.max(peakRenders, ++renders);
      await new Promise<void>((resolve) => gates.push(resolve));
      renders--;
    })
  );
  await new Promise((r) => setImmediate(r));
  // Two renders run and hold their slots; the third slot is free for an upload.
  expect(gates).toHaveLength(2);
  await expect(any(async () => 'upload done')).resolves.toBe('upload done');
  while (gates.length > 0) {
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(rendering);
  expect(peakRenders).toBe(2);
});
