/**
 * HEIC (HEVC-coded HEIF, what phones send) decoded off the event loop: libheif's WebAssembly build
 * runs in worker threads (heic-worker.ts), never on the thread that serves requests, and only inside
 * an image-work slot (image-work.ts), so no more decode at once than the slots allow.
 *
 * Workers are kept between images (a new thread per image costs the WebAssembly module's start and a
 * malloc arena of its own; see bmp-renditions.ts), one per decode under way, except after a large
 * image: a WebAssembly heap grows to its largest image and never shrinks, so a worker that decoded
 * more than LARGE_PIXELS is stopped and its memory goes with it.
 */
import path from 'path';
import { Worker } from 'worker_threads';
import { errors } from '../../http/api-error';
import type { HeicAnswer, HeicJob } from './heic-worker';

/** Longest a HEIC may take to decode (a 12 MP grid takes about 0.4 s here). */
const HEIC_TIMEOUT_MS = 60_000;

/** A worker that decoded more pixels than this is stopped afterwards (its heap would stay that large). */
const LARGE_PIXELS = 16_000_000;

/** Idle workers kept for the next images; at most the image-work slots are ever busy at once. */
const MAX_IDLE = 4;

/** The compiled worker beside this module. */
const WORKER = path.join(__dirname, 'heic-worker.js');

export interface DecodedPixels {
  /** RGBA, 8 bits a sample, rows top to bottom, upright (the container's rotation applied). */
  pixels: Buffer;
  width: number;
  height: number;
  hasAlpha: boolean;
}

const idle: Worker[] = [];

function takeWorker(): Worker {
  const worker = idle.pop() ?? new Worker(WORKER);
  // An idle worker never keeps the process alive.
  worker.unref();
  return worker;
}

function giveBack(worker: Worker, keep: boolean): void {
  if (keep && idle.length < MAX_IDLE) idle.push(worker);
  else void worker.terminate();
}

/**
 * The pixels of the HEIC in `bytes`. Refusals are the error table's: 311 when it cannot be read,
 * 313 when it is over `maxPixels` (checked again from its container before decoding).
 */
export function heicPixels(bytes: Buffer, maxPixels: number): Promise<DecodedPixels> {
  const worker = takeWorker();
  return new Promise<DecodedPixels>((resolve, reject) => {
    const done = (keep: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      giveBack(worker, keep);
    };
    const onMessage = (answer: HeicAnswer) => {
      if ('pixels' in answer) {
        done(answer.width * answer.height <= LARGE_PIXELS);
        const { pixels, width, height, hasAlpha } = answer;
        resolve({ pixels: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), width, height, hasAlpha });
      } else if ('tooLarge' in answer) {
        done(true);
        reject(errors.tooManyPixels(maxPixels));
      } else {
        done(false);
        reject(errors.invalidImage());
      }
    };
    const onError = () => {
      done(false);
      reject(errors.invalidImage());
    };
    // Gone without a word (out of memory, say): the image could not be read.
    const onExit = () => {
      done(false);
      reject(errors.invalidImage());
    };
    const timer = setTimeout(() => {
      done(false);
      reject(errors.invalidImage('decoding took too long'));
    }, HEIC_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    const job: HeicJob = { bytes, maxPixels };
    worker.postMessage(job);
  });
}

/** Stops the idle workers (the plugin's destroy). */
export async function stopHeicWorkers(): Promise<void> {
  await Promise.all(idle.splice(0).map((worker) => worker.terminate()));
}
