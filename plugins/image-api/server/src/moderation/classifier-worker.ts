/**
 * The worker thread of classifier.ts: loads nsfwjs's MobileNetV2 model from the files inside its npm
 * package (nothing is downloaded) on TensorFlow.js's WebAssembly backend, then classifies the
 * 224×224 RGB pixels it is sent, one job at a time, answering the five class probabilities.
 *
 * WebAssembly rather than TensorFlow.js's plain JavaScript backend: the same model answered the same
 * scores in about 55 ms instead of 850 ms here (tools/bench/classifier.js). @tensorflow/tfjs-node
 * would be faster still, but its install downloads a native library, which a plugin cannot ask of
 * every machine it is installed on.
 */
import path from 'path';
import { parentPort } from 'worker_threads';
import type { ClassifierAnswer, ClassifierJob } from './classifier-job';

// The pixels arrive as bytes; TensorFlow.js is loaded here only, never on the thread that serves.
/* eslint-disable @typescript-eslint/no-require-imports */
const tf = require('@tensorflow/tfjs') as typeof import('@tensorflow/tfjs');
const wasm = require('@tensorflow/tfjs-backend-wasm') as typeof import('@tensorflow/tfjs-backend-wasm');
const nsfwjs = require('nsfwjs') as typeof import('nsfwjs');
/* eslint-enable @typescript-eslint/no-require-imports */

const SIDE = 224;
const CLASSES = { Drawing: 'drawing', Hentai: 'hentai', Neutral: 'neutral', Porn: 'porn', Sexy: 'sexy' } as const;

async function loadModel() {
  // The backend's .wasm files, from its package's folder on disk.
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  // nsfwjs announces the model it loads on the console: nothing for a server's log.
  const info = console.info;
  console.info = () => undefined;
  try {
    return await nsfwjs.load('MobileNetV2', { size: SIDE });
  } finally {
    console.info = info;
  }
}

const model = loadModel();
// A model that cannot load: every job is answered with the reason, and the owner replaces the worker.
model.catch(() => undefined);

parentPort!.on('message', async (job: ClassifierJob) => {
  let answer: ClassifierAnswer;
  try {
    const loaded = await model;
    if (job.kind === 'warm') {
      answer = { id: job.id, scores: null };
    } else {
      if (job.rgb.length !== SIDE * SIDE * 3) throw new Error(`expected ${SIDE}×${SIDE} RGB pixels, got ${job.rgb.length} bytes`);
      const input = tf.tensor3d(job.rgb, [SIDE, SIDE, 3], 'int32');
      try {
        const predictions = await loaded.classify(input, 5);
        const scores = { drawing: 0, hentai: 0, neutral: 0, porn: 0, sexy: 0 };
        for (const { className, probability } of predictions) scores[CLASSES[className as keyof typeof CLASSES]] = probability;
        answer = { id: job.id, scores };
      } finally {
        input.dispose();
      }
    }
  } catch (error) {
    answer = { id: job.id, error: (error as Error).message };
  }
  parentPort!.postMessage(answer);
});
