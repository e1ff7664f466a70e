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
import { ApiError, errors } from '../../http/api-error';
import type { BmpAnswer } from './bmp-worker';

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
export function bmpAsPng(bytes: Buffer): Promise<Buffer> {
  const current = theWorker();
  return new Promise<Buffer>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      current.off('message', onMessage);
      current.off('error', onError);
      current.off('exit', onExit);
    };
    const onMessage = (answer: BmpAnswer) => {
      done();
      if ('png' in answer) resolve(Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength));
      else if ('refusal' in answer) reject(new ApiError(answer.refusal.status, answer.refusal.code, answer.refusal.message));
      else {
        replaceWorker(current);
        reject(new Error(`BMP worker: ${answer.failure}`));
      }
    };
    const onError = (error: Error) => {
      done();
      replaceWorker(current);
      reject(error);
    };
    // Gone without a word (out of memory, say): the image could not be read.
    const onExit = () => {
      done();
      replaceWorker(current);
      reject(errors.invalidImage());
    };
    const timer = setTimeout(() => {
      done();
      replaceWorker(current);
      reject(errors.invalidImage('decoding took too long'));
    }, BMP_TIMEOUT_MS);
    current.on('message', onMessage);
    current.once('error', onError);
    current.once('exit', onExit);
    current.postMessage(bytes);
  });
}
