/**
 * One job for a worker thread (bmp-variants.ts, heic-variants.ts): the job is posted, and the
 * worker's answer resolves the promise. A worker that throws, exits or takes longer than `timeoutMs`
 * rejects it (the error; 311 for an exit, as out of memory; 311 "decoding took too long"): the
 * caller then stops that worker and uses a new one for the next job. `transfer`: buffers the job
 * hands over rather than copies.
 */
import type { Worker } from 'worker_threads';
import { errors } from '../../http/api-error';

export function answerOf<Answer>(worker: Worker, job: unknown, timeoutMs: number, transfer: ArrayBuffer[] = []): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (answer: Answer) => {
      done();
      resolve(answer);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // Gone without a word (out of memory, say): the image could not be read.
    const onExit = () => {
      done();
      reject(errors.invalidImage());
    };
    const timer = setTimeout(() => {
      done();
      reject(errors.invalidImage('decoding took too long'));
    }, timeoutMs);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(job, transfer);
  });
}
