/**
 * Image work (decoding, resizing, encoding) is CPU- and memory-bound: running more of it at once
 * than the box has cores only adds memory (every decode holds its buffers) and context switches.
 * Uploads past that number wait their turn here, holding nothing but their request. The cores are
 * shared out: images at once × libvips threads per image = cores (sharp's default would give every
 * image all of them, and two images on two cores would run four threads, besides the JavaScript
 * thread that serves the requests: measured, that costs about a tenth more CPU per upload).
 * libvips' operation cache is off: it only pays when the same image is processed twice, which
 * never happens. When the work goes quiet, what it left is collected (operations/idle-collection.ts).
 *
 * Transformation renders (asked for by anyone, keyed or not) take these slots too, at most
 * `renderConcurrency` of them at once, one fewer than the slots by default, so that an upload finds a
 * slot however many renders strangers ask for. A slot nobody else wants is not left idle, though: while
 * no upload runs or waits, a render of a still image may borrow the one left for uploads (on 2 cores,
 * renders alone went at 0.65 of the bare resize on one slot, 0.82 on both), one borrower at a time.
 * An upload arriving meanwhile waits for the first slot to free, behind no queued render: uploads
 * always go first, so it waits one render at most, and only a cheap one borrows (the caller says: a
 * still of at most BORROW_MAX_PIXELS, delivery/renditions.ts; a 12 MP JPEG takes tens of
 * milliseconds, an AVIF at 1920 px under a second). Renders of animations never borrow.
 *
 * All of it is process-wide (sharp's settings are libvips globals), so it is set once, when the plugin
 * registers: before the first upload, and before anything else in the app uses sharp.
 */
import os from 'os';
import sharp from 'sharp';
import { busyWithImages } from '../operations/idle-collection';

export type ImageWorkLimit = <T>(work: () => Promise<T>) => Promise<T>;

/** How a render asks for a slot: `borrow`, it may take the uploads' slot while no upload wants it. */
export type RenderWorkLimit = <T>(work: () => Promise<T>, options?: { borrow?: boolean }) => Promise<T>;

export interface ImageWorkLimits {
  /** Any image work but a render: an upload's, a placeholder's. Goes before every queued render. */
  any: ImageWorkLimit;
  /** A transformation render: at most `renderConcurrency` at once, or one more borrowing (see above). */
  render: RenderWorkLimit;
  slots: number;
  renderSlots: number;
}

/**
 * The slots: `slots` pieces of work at once, uploads first; renders at most `renderSlots` at once,
 * plus borrowers while no upload runs or waits. A job is forgotten as soon as it starts (as in
 * concurrency-limit.ts: a queue that kept a finished job would keep its upload's bytes).
 */
function imageSlots(slots: number, renderSlots: number): Pick<ImageWorkLimits, 'any' | 'render'> {
  let running = 0;
  let renders = 0;
  let uploads = 0;
  const uploadsWaiting: Array<() => void> = [];
  const rendersWaiting: Array<{ start: () => void; borrow: boolean }> = [];
  // One borrower at a time: an operator's lower renderConcurrency keeps the rest of its reservation.
  const mayRender = (borrow: boolean) => renders < renderSlots || (borrow && renders === renderSlots && uploads === 0 && uploadsWaiting.length === 0);
  const pump = () => {
    while (running < slots) {
      const upload = uploadsWaiting.shift();
      if (upload) {
        upload();
        continue;
      }
      const render = rendersWaiting[0];
      if (!render || !mayRender(render.borrow)) return;
      rendersWaiting.shift();
      render.start();
    }
  };
  const run = <T>(work: () => Promise<T>, isRender: boolean, resolve: (value: T) => void, reject: (reason: unknown) => void) => {
    running++;
    if (isRender) renders++;
    else uploads++;
    // A job that throws at once rejects like one that fails later.
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => {
        running--;
        if (isRender) renders--;
        else uploads--;
        pump();
      });
  };
  return {
    any: <T>(work: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        uploadsWaiting.push(() => run(work, false, resolve, reject));
        pump();
      }),
    render: <T>(work: () => Promise<T>, { borrow = false }: { borrow?: boolean } = {}) =>
      new Promise<T>((resolve, reject) => {
        rendersWaiting.push({ start: () => run(work, true, resolve, reject), borrow });
        pump();
      }),
  };
}

let processLimits: ImageWorkLimits | null = null;

/**
 * Sets sharp up for this workload (process-wide) and returns the limiters. `concurrency` null: one
 * image per core; `threadsPerImage` null: the cores divided among the images, at least one;
 * `renderConcurrency` null: one fewer than the images, at least one.
 */
export function createImageWorkLimit(concurrency: number | null, threadsPerImage: number | null, renderConcurrency: number | null = null): ImageWorkLimits {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const images = concurrency ?? cores;
  sharp.cache(false);
  sharp.concurrency(threadsPerImage ?? Math.max(1, Math.floor(cores / images)));
  const renderSlots = Math.min(images, renderConcurrency ?? Math.max(1, images - 1));
  const { any, render } = imageSlots(images, renderSlots);
  // Waiting or running, it keeps the process busy: what it leaves is collected once all is quiet.
  return {
    any: (work) => any(work).finally(busyWithImages()),
    render: (work, options) => render(work, options).finally(busyWithImages()),
    slots: images,
    renderSlots,
  };
}

/** Sets up the process's image work (see createImageWorkLimit); called when the plugin registers. */
export function configureImageWork(concurrency: number | null, threadsPerImage: number | null, renderConcurrency: number | null = null): void {
  processLimits = createImageWorkLimit(concurrency, threadsPerImage, renderConcurrency);
}

const limits = (): ImageWorkLimits => {
  if (!processLimits) throw new Error('image-api: image work used before the plugin registered');
  return processLimits;
};

/** How many pieces of image work run at once in this process (configureImageWork): the renders running at once are never more. */
export function imageWorkSlots(): number {
  return limits().slots;
}

/** Runs `work` when the process's image work allows (configureImageWork). */
export function runImageWork<T>(work: () => Promise<T>): Promise<T> {
  return limits().any(work);
}

/** Runs a transformation's render when the render slots allow (`borrow`: a still's, see above). */
export function runRenderWork<T>(work: () => Promise<T>, options?: { borrow?: boolean }): Promise<T> {
  return limits().render(work, options);
}
