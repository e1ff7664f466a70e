/**
 * Image work (decoding, resizing, encoding) is CPU- and memory-bound: running more of it at once
 * than the box has cores only adds memory (every decode holds its buffers) and context switches.
 * Uploads past that number wait their turn here, holding nothing but their request. libvips'
 * operation cache is off: it only pays when the same image is processed twice, which never happens.
 */
import os from 'os';
import pLimit from 'p-limit';
import sharp from 'sharp';

export type ImageWorkLimit = <T>(work: () => Promise<T>) => Promise<T>;

/** Sets sharp up for this workload and returns the limiter (`concurrency` null: one per core). */
export function createImageWorkLimit(concurrency: number | null, threadsPerImage: number | null): ImageWorkLimit {
  sharp.cache(false);
  if (threadsPerImage !== null) sharp.concurrency(threadsPerImage);
  const limit = pLimit(concurrency ?? Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
  return (work) => limit(work);
}
