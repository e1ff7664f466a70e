/**
 * HEIC (HEVC-coded HEIF, what phones send) off the event loop: a worker thread (heic-worker.ts)
 * decodes it with libheif's WebAssembly build and makes its variants from the pixels, so the
 * thread that serves requests only ever holds the file and the encoded results. It runs inside an
 * image-work slot (image-work.ts), one HEIC at a time per process: a decode holds the file, its
 * WebAssembly heap (65 MB for a 12 MP photo) and its pixels (36 MB) while the variants are made,
 * and two at once took 16 concurrent 12 MP uploads to a peak of 1 GB of RSS
 * (tests/faults/attacks.test.ts measures it).
 *
 * The worker is kept between images (a new thread per image costs the WebAssembly module's start,
 * about 150 ms of CPU), except after a large image: a WebAssembly heap grows to its largest image and
 * never shrinks, so a worker that decoded more than LARGE_PIXELS is stopped and its memory goes with
 * it; so is one that failed or timed out, and one left idle for IDLE_MS (its heap of 65 MB for a
 * 12 MP photo stayed in RSS after a burst of HEICs, for as long as the server stayed quiet).
 *
 * Where heif-convert is installed (the `heicDecoder` option, heif-convert.ts), it decodes the pixels
 * instead, in a child process, at about twice the speed: the worker reads the container first (the
 * pixel cap holds before the child runs) and says whether the image is one heif-convert decodes as
 * libheif-js would; the child's frame goes back to the worker for its RGB and its variants. A child
 * that fails is followed by the WebAssembly decode (what libheif 1.15 cannot read, a newer one may);
 * one killed at the timeout is the upload's 311, as a worker's.
 */
import path from 'path';
import { Worker } from 'worker_threads';
import { errorAgain } from '../../http/api-error';
import type { VariantSet, VariantOptions } from '../variant-set';
import type { HeicAnswer, HeicJob } from './heic-job';
import { answerOf } from './worker-answer';
import { concurrencyLimit } from '../concurrency-limit';
import { decodeNatively, nativeDecoder, NativeDecodeFailure, tookTooLong } from './heif-convert';

/** A worker that decoded more pixels than this is stopped afterwards (its heap would stay that large). */
const LARGE_PIXELS = 16_000_000;

/** An idle worker is stopped after this long without a HEIC. */
const IDLE_MS = 10_000;

/** The compiled worker beside this module. */
const WORKER = path.join(__dirname, 'heic-worker.js');

const oneAtATime = concurrencyLimit(1);
let idle: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;

function takeWorker(): Worker {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const worker = idle ?? new Worker(WORKER);
  idle = null;
  // An idle worker never keeps the process alive.
  worker.unref();
  return worker;
}

function giveBack(worker: Worker, keep: boolean): void {
  if (!keep) {
    void worker.terminate();
    return;
  }
  idle = worker;
  idleTimer = setTimeout(() => void stopHeicWorkers(), IDLE_MS);
  idleTimer.unref();
}

/** Encoded files arrive as Uint8Arrays (structured clone): Buffers again, over the same memory. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The variants of the HEIC in `bytes` (image-variants.ts, pixelVariants). Refusals are the error
 * table's: 311 when it cannot be read, 315 when it is over `maxPixels` (checked again from its container
 * before decoding).
 */
export function heicVariants(bytes: Buffer, options: VariantOptions, width: number | null): Promise<VariantSet> {
  return oneAtATime(async () => {
    const native = await nativeDecoder(options.heicDecoder);
    const deadline = Date.now() + options.heicTimeoutMs;
    let answer = await inWorker({ bytes, options, width, native: native !== null }, options.heicTimeoutMs);
    if ('native' in answer && native) {
      const plan = answer.native;
      let frame: Buffer | null = null;
      try {
        frame = await decodeNatively(native, { bytes, width: plan.width, height: plan.height, timeoutMs: Math.max(1, deadline - Date.now()), tmpDir: options.tmpDir });
      } catch (error) {
        if (!(error instanceof NativeDecodeFailure)) throw error;
        if (error.timedOut) throw tookTooLong();
      }
      const left = Math.max(1, deadline - Date.now());
      answer = frame
        ? await inWorker({ bytes, options, width, y4m: { frame, plan } }, left, ownBuffer(frame))
        : await inWorker({ bytes, options, width }, left);
    }
    return variantsOf(answer);
  });
}

/** The buffer under `bytes` when `bytes` is all of it: handed to the worker rather than copied. */
const ownBuffer = (bytes: Buffer): ArrayBuffer[] =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : [];

async function inWorker(job: HeicJob, timeoutMs: number, transfer: ArrayBuffer[] = []): Promise<HeicAnswer> {
  const worker = takeWorker();
  let answer: HeicAnswer;
  try {
    answer = await answerOf<HeicAnswer>(worker, job, timeoutMs, transfer);
  } catch (error) {
    giveBack(worker, false);
    throw error;
  }
  giveBack(worker, !('variants' in answer) || answer.variants.original.width * answer.variants.original.height <= LARGE_PIXELS);
  return answer;
}

function variantsOf(answer: HeicAnswer): VariantSet {
  if ('refusal' in answer) throw errorAgain(answer.refusal);
  if ('native' in answer) throw new Error('the HEIC worker planned a native decode it was not offered');
  const { original, thumb, medium, placeholder } = answer.variants;
  const encoded = <T extends { buffer: Uint8Array }>(image: T) => ({ ...image, buffer: asBuffer(image.buffer) });
  return { original: encoded(original), thumb: encoded(thumb), medium: encoded(medium), placeholder };
}

/** Stops the idle worker (the plugin's destroy, or IDLE_MS without a HEIC). */
export async function stopHeicWorkers(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const worker = idle;
  idle = null;
  await worker?.terminate();
}
