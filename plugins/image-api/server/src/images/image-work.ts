/**
 * Image work (decoding, resizing, encoding) is CPU- and memory-bound: running more of it at once
 * than the box has cores only adds memory (every decode holds its buffers) and context switches.
 * Uploads past that number wait their turn here, holding nothing but their request. The cores are
 * shared out: images at once × libvips threads per image = cores (sharp's default would give every
 * image all of them, and two images on two cores would run four threads, besides the JavaScript
 * thread that serves the requests: measured, that costs about a tenth more CPU per upload).
 * libvips' operation cache is off: it only pays when the same image is processed twice, which
 * never happens. When the work goes quiet, what it left is collected (process/idle-collection.ts).
 *
 * All of it is process-wide (sharp's settings are libvips globals), so it is set once, when the plugin
 * registers: before the first upload, and before anything else in the app uses sharp.
 */
import os from 'os';
import sharp from 'sharp';
import { concurrencyLimit } from './concurrency-limit';
import { busyWithImages } from '../process/idle-collection';

export type ImageWorkLimit = <T>(work: () => Promise<T>) => Promise<T>;

let processLimit: ImageWorkLimit | null = null;

/**
 * Sets sharp up for this workload (process-wide) and returns the limiter. `concurrency` null: one
 * image per core; `threadsPerImage` null: the cores divided among the images, at least one.
 */
export function createImageWorkLimit(concurrency: number | null, threadsPerImage: number | null): ImageWorkLimit {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const images = concurrency ?? cores;
  sharp.cache(false);
  sharp.concurrency(threadsPerImage ?? Math.max(1, Math.floor(cores / images)));
  const limit = concurrencyLimit(images);
  // Waiting or running, it keeps the process busy: what it leaves is collected once all is quiet.
  return <T>(work: () => Promise<T>) => limit(work).finally(busyWithImages());
}

/** Sets up the process's image work (see createImageWorkLimit); called when the plugin registers. */
export function configureImageWork(concurrency: number | null, threadsPerImage: number | null): void {
  processLimit = createImageWorkLimit(concurrency, threadsPerImage);
}

/** Runs `work` when the process's image work allows (configureImageWork). */
export function runImageWork<T>(work: () => Promise<T>): Promise<T> {
  if (!processLimit) throw new Error('image-api: image work used before the plugin registered');
  return processLimit(work);
}
