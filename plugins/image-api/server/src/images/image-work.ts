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
 * Transformation renders (asked for by anyone, keyed or not) take these slots too, but at most
 * `renderConcurrency` of them at once, one fewer than the slots by default: an upload always finds a
 * slot, or waits behind other uploads only, however many renders strangers ask for (they queue in
 * their own limit, not in this one). On one slot, an upload waits behind one render at most.
 *
 * All of it is process-wide (sharp's settings are libvips globals), so it is set once, when the plugin
 * registers: before the first upload, and before anything else in the app uses sharp.
 */
import os from 'os';
import sharp from 'sharp';
import { concurrencyLimit } from './concurrency-limit';
import { busyWithImages } from '../operations/idle-collection';

export type ImageWorkLimit = <T>(work: () => Promise<T>) => Promise<T>;

export interface ImageWorkLimits {
  /** Any image work: an upload's, a placeholder's, a render's. */
  any: ImageWorkLimit;
  /** A transformation render: within `any`, at most `renderConcurrency` at once. */
  render: ImageWorkLimit;
  slots: number;
  renderSlots: number;
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
  const limit = concurrencyLimit(images);
  // Waiting or running, it keeps the process busy: what it leaves is collected once all is quiet.
  const any: ImageWorkLimit = (work) => limit(work).finally(busyWithImages());
  // A render enters the shared slots only once it holds one of its own: never more than renderSlots
  // of them are running or queued there, ahead of an upload.
  const renderSlots = Math.min(images, renderConcurrency ?? Math.max(1, images - 1));
  const renderLimit = concurrencyLimit(renderSlots);
  return { any, render: (work) => renderLimit(() => any(work)), slots: images, renderSlots };
}

/** Sets up the process's image work (see createImageWorkLimit); called when the plugin registers. */
export function configureImageWork(concurrency: number | null, threadsPerImage: number | null, renderConcurrency: number | null = null): void {
  processLimits = createImageWorkLimit(concurrency, threadsPerImage, renderConcurrency);
}

const limits = (): ImageWorkLimits => {
  if (!processLimits) throw new Error('image-api: image work used before the plugin registered');
  return processLimits;
};

/** Runs `work` when the process's image work allows (configureImageWork). */
export function runImageWork<T>(work: () => Promise<T>): Promise<T> {
  return limits().any(work);
}

/** Runs a transformation's render when the render slots and the process's image work allow. */
export function runRenderWork<T>(work: () => Promise<T>): Promise<T> {
  return limits().render(work);
}
