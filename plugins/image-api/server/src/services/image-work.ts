/**
 * Image work (decoding, resizing, encoding) is CPU- and memory-bound: running more of it at once
 * than the box has cores only adds memory (every decode holds its buffers) and context switches.
 * Uploads past that number wait their turn here, holding nothing but their request. The cores are
 * shared out: images at once × libvips threads per image = cores (sharp's default would give every
 * image all of them, and two images on two cores would run four threads, besides the JavaScript
 * thread that serves the requests: measured, that costs about a tenth more CPU per upload).
 * libvips' operation cache is off: it only pays when the same image is processed twice, which
 * never happens.
 */
import os from 'os';
import pLimit from 'p-limit';
import sharp from 'sharp';

export type ImageWorkLimit = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Sets sharp up for this workload (process-wide) and returns the limiter. `concurrency` null: one
 * image per core; `threadsPerImage` null: the cores divided among the images, at least one.
 */
export function createImageWorkLimit(concurrency: number | null, threadsPerImage: number | null): ImageWorkLimit {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const images = concurrency ?? cores;
  sharp.cache(false);
  sharp.concurrency(threadsPerImage ?? Math.max(1, Math.floor(cores / images)));
  const limit = pLimit(images);
  return (work) => limit(work);
}
