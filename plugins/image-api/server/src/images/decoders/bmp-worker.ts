/**
 * The worker thread of bmp-variants.ts: turns each BMP it is sent into a PNG (bmp-to-png.ts) and
 * hands the PNG back (moved, not copied). One job at a time. What a job leaves (its copy of the
 * BMP, the compressed bands) is collected after it: an idle worker allocates nothing, so V8 would
 * otherwise keep it until the next BMP (as heic-worker.ts does).
 */
import { parentPort } from 'worker_threads';
import { isApiError, refusalOf, type ErrorOrigin } from '../../http/api-error';
import { bmpToPng } from './bmp-to-png';
import { collectGarbage } from '../../operations/collect-garbage';

/** What the worker answers: the PNG, or the refusal (an error-table row), or the failure. */
export type BmpAnswer = { png: Uint8Array } | { refusal: ErrorOrigin } | { failure: string };

async function work(bytes: Uint8Array): Promise<BmpAnswer> {
  try {
    return { png: await bmpToPng(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) };
  } catch (error) {
    if (isApiError(error)) return { refusal: refusalOf(error) };
    return { failure: String((error as Error)?.message ?? error) };
  }
}

/**
 * Posts the answer, moving the PNG's memory when it can be moved. A small PNG may sit in Node's
 * shared buffer pool, which Node 24 refuses to transfer ("DataCloneError: Cannot transfer object of
 * unsupported type"; Node 20 let it go): that one is copied.
 */
function post(port: NonNullable<typeof parentPort>, answer: BmpAnswer): void {
  if (!('png' in answer)) return port.postMessage(answer);
  const { png } = answer;
  const whole = png.byteOffset === 0 && png.byteLength === png.buffer.byteLength;
  try {
    port.postMessage(answer, whole ? [png.buffer as ArrayBuffer] : []);
  } catch {
    port.postMessage(answer);
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (bytes: Uint8Array) => {
    void work(bytes).then((answer) => {
      post(port, answer);
      collectGarbage();
    });
  });
}
