/**
 * BMP pixels for sharp, which has no BMP loader. decode-bmp expands a BMP into RGBA in JavaScript:
 * on the event loop, a 9.7 MB 1-bit BMP of 8800×8800 (77 MP, under the pixel cap) once took 3 s of
 * it per upload and stalled every other request. So it runs in a worker thread, one per decode, that
 * exits when done: its heap goes with it, and the pixels come back moved, not copied.
 *
 * Its memory is what its pixels take (4 bytes each: 308 MB at 77 MP), and it is held until the
 * renditions are encoded, so BMP images are worked on one at a time per process (withBmpBudget).
 * Other formats stream through libvips and hold far less.
 */
import { Worker } from 'worker_threads';
import pLimit from 'p-limit';
import type { SharpOptions } from 'sharp';
import { errors } from '../contract/api-error';

export interface BmpPixels {
  input: Buffer;
  options: SharpOptions;
  /** No alpha to keep: decode-bmp always gives RGBA, and only 32-bit BMPs carry a real alpha channel. */
  opaque: boolean;
}

/** The worker's code: decode, then hand the pixels' memory over (transfer list) and exit. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const decodeBmp = require(workerData.decoder);
try {
  const { width, height, data, colorDepth } = decodeBmp(workerData.bytes);
  parentPort.postMessage({ width, height, colorDepth, pixels: data.buffer }, [data.buffer]);
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message || error) });
}
`;

/** Longest a decode may take before the worker is stopped (an 80 MP BMP takes about 1 s here). */
const DECODE_TIMEOUT_MS = 60_000;

interface WorkerAnswer {
  width?: number;
  height?: number;
  colorDepth?: number;
  pixels?: ArrayBuffer;
  error?: string;
}

/** Decodes `bytes` (a BMP) in a worker thread; refuses what decode-bmp cannot read with 400/311. */
export function decodeBmpOffThread(bytes: Buffer): Promise<BmpPixels> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bytes, decoder: require.resolve('decode-bmp') } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(errors.invalidImage('decoding took too long'));
    }, DECODE_TIMEOUT_MS);
    const done = () => clearTimeout(timer);
    worker.once('message', (answer: WorkerAnswer) => {
      done();
      if (answer.error || !answer.pixels) return reject(errors.invalidImage());
      const { width = 0, height = 0, colorDepth } = answer;
      resolve({ input: Buffer.from(answer.pixels), options: { raw: { width, height, channels: 4 } }, opaque: colorDepth !== 32 });
    });
    worker.once('error', () => {
      done();
      reject(errors.invalidImage());
    });
    // Exited without a word (killed for memory, say): not an image we can read.
    worker.once('exit', () => {
      done();
      reject(errors.invalidImage());
    });
  });
}

const oneAtATime = pLimit(1);

/** Runs `work` (a BMP's decode and renditions) when no other BMP is being worked on in this process. */
export const withBmpBudget = <T>(work: () => Promise<T>): Promise<T> => oneAtATime(work);
