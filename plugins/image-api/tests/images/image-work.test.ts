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

/** Work that runs until its gate is opened. */
function gated() {
  const gates: Array<() => void> = [];
  const job = (log: string[], name: string) => async () => {
    log.push(`start ${name}`);
    await new Promise<void>((resolve) => gates.push(resolve));
    log.push(`end ${name}`);
  };
  const openFirst = async () => {
    gates.shift()!();
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };
  return { gates, job, openFirst };
}
const settle = () => new Promise((r) => setImmediate(r));

test('a still render borrows the uploads\' slot while no upload wants it; an upload arriving then waits for the first slot to free, ahead of queued renders', async () => {
  const { render, any } = createImageWorkLimit(2, null);
  const { gates, job, openFirst } = gated();
  const log: string[] = [];
  const renders = ['r1', 'r2', 'r3'].map((name) => render(job(log, name), { borrow: true }));
  await settle();
  // Both slots taken by renders: nothing else wanted them.
  expect(log).toEqual(['start r1', 'start r2']);
  const upload = any(job(log, 'u1'));
  await settle();
  expect(gates).toHaveLength(2);
  // The first slot freed goes to the upload, not to the render queued before it.
  await openFirst();
  expect(log).toEqual(['start r1', 'start r2', 'end r1', 'start u1']);
  // While the upload runs, renders keep to their own slot: r3 waits for r2, not for the upload.
  await openFirst();
  expect(log.slice(4)).toEqual(['end r2', 'start r3']);
  while (gates.length) await openFirst();
  await Promise.all([...renders, upload]);
  expect(log.filter((line) => line.startsWith('end'))).toHaveLength(4);
});

test('renders that may not borrow (animations) keep to their slots, even with no upload about; the queue keeps its order', async () => {
  const { render } = createImageWorkLimit(2, null);
  const { gates, job, openFirst } = gated();
  const log: string[] = [];
  const renders = [render(job(log, 'a1')), render(job(log, 'a2')), render(job(log, 's1'), { borrow: true })];
  await settle();
  // The still behind the second animation does not overtake it.
  expect(log).toEqual(['start a1']);
  expect(gates).toHaveLength(1);
  await openFirst();
  // The animation takes the render slot; the still, first in the queue now, borrows the other.
  expect(log.slice(1)).toEqual(['end a1', 'start a2', 'start s1']);
  while (gates.length) await openFirst();
  await Promise.all(renders);
});

test('no render borrows while an upload runs; a failing job frees its slot', async () => {
  const { render, any } = createImageWorkLimit(2, null);
  const { gates, job, openFirst } = gated();
  const log: string[] = [];
  const upload = any(job(log, 'u1'));
  const renders = ['r1', 'r2'].map((name) => render(job(log, name), { borrow: true }));
  await settle();
  expect(log).toEqual(['start u1', 'start r1']);
  await openFirst();
  // The upload is done: r2 may borrow now.
  expect(log.slice(2)).toEqual(['end u1', 'start r2']);
  const failing = any(async () => {
    throw new Error('broken');
  });
  await openFirst();
  await expect(failing).rejects.toThrow('broken');
  const after = any(async () => 'ran');
  await expect(after).resolves.toBe('ran');
  while (gates.length) await openFirst();
  await Promise.all([upload, ...renders]);
});
