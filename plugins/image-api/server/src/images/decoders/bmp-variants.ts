/**
 * BMP images, off the event loop and within bounded memory. sharp has no BMP loader, and decode-bmp
 * expands a whole BMP into RGBA in JavaScript: on the event loop, a 9.7 MB 1-bit BMP of 8800×8800
 * (77 MP, under the pixel cap) once took 3 s of it per upload, stalled every other request, and left
 * RSS 350 MB higher. Now a worker thread (bmp-worker.ts) turns the BMP into a PNG, a band of rows at
 * a time (bmp-to-png.ts): that PNG is the stored original, and libvips makes the variants from it as
 * it does from any PNG, streaming.
 *
 * One worker per process, kept between BMPs (started at the first, stopped and replaced after a
 * failure or a timeout): a new thread for each BMP would get a malloc arena of its own, whose freed
 * memory the allocator keeps (measured: RSS 180 MB higher after three BMPs). Its jobs run one at a
 * time (image-variants.ts runs BMPs one at a time).
 */
import path from 'path';
import { Worker } from 'worker_threads';
import { errorAgain } from '../../http/api-error';
import type { BmpAnswer } from './bmp-worker';
import { answerOf } from './worker-answer';

/** Longest a BMP may take to turn into a PNG (a 77 MP one takes about 14 s here, the variants included). */
const BMP_TIMEOUT_MS = 60_000;

/** The compiled worker beside this module (dist/server/images). */
const WORKER = path.join(__dirname, 'bmp-worker.js');

let worker: Worker | null = null;

function theWorker(): Worker {
  if (!worker) {
    worker = new Worker(WORKER);
    // An idle worker never keeps the process alive.
    worker.unref();
  }
  return worker;
}

/** Stops the worker (after a failure or a timeout): the next BMP starts a new one. */
function replaceWorker(stopped: Worker): void {
  if (worker === stopped) worker = null;
  void stopped.terminate();
}

/** The BMP in `bytes` as a PNG, made in the worker thread; refusals are the error table's (311). Call one at a time. */
export async function bmpAsPng(bytes: Buffer): Promise<Buffer> {
  const current = theWorker();
  let answer: BmpAnswer;
  try {
    answer = await answerOf<BmpAnswer>(current, bytes, BMP_TIMEOUT_MS);
  } catch (error) {
    replaceWorker(current);
    throw error;
  }
  if ('png' in answer) return Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength);
  if ('refusal' in answer) throw errorAgain(answer.refusal);
  replaceWorker(current);
  throw new Error(`BMP worker: ${answer.failure}`);
}
