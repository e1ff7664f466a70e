/**
 * The worker thread of bmp-renditions.ts: turns each BMP it is sent into a PNG (bmp-to-png.ts) and
 * hands the PNG back (moved, not copied). One job at a time.
 */
import { parentPort } from 'worker_threads';
import { isApiError } from '../../http/api-error';
import { bmpToPng } from './bmp-to-png';

/** What the worker answers: the PNG, or the refusal (an error-table row), or the failure. */
export type BmpAnswer = { png: Uint8Array } | { refusal: { status: number; code: number; message: string } } | { failure: string };

async function work(bytes: Uint8Array): Promise<BmpAnswer> {
  try {
    return { png: await bmpToPng(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) };
  } catch (error) {
    if (isApiError(error)) return { refusal: { status: error.status, code: error.code, message: error.message } };
    return { failure: String((error as Error)?.message ?? error) };
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (bytes: Uint8Array) => {
    void work(bytes).then((answer) => port.postMessage(answer, 'png' in answer ? [answer.png.buffer as ArrayBuffer] : []));
  });
}
