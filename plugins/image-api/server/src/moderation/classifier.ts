/**
 * The image classifier (docs/moderation.md, "What is classified"): one worker thread per process
 * (classifier-worker.ts) holds nsfwjs's model, loaded once and kept (its load costs seconds of a
 * core); jobs are queued to it and answered in order. The thread that serves requests never runs
 * TensorFlow.js: it sends 150 KB of pixels and gets five numbers back.
 *
 * A worker that crashes or exits fails the jobs it held and is replaced at the next job; one that
 * takes longer than the time limit is stopped (a job that hung would hold every later one).
 */
import path from 'path';
import { Worker } from 'worker_threads';
import type { Core } from '@strapi/strapi';
import type { ClassifierAnswer, ClassifierJob, ClassifierTask } from './classifier-job';
import type { NsfwScores } from './moderation-modes';

/** The side of the square RGB input the model reads. */
export const CLASSIFIER_INPUT = 224;

/** Longest a classification may take once the model is loaded (about 55 ms here; a loaded machine queues). */
const CLASSIFY_TIMEOUT_MS = 30_000;

/** Longest the model's load may take (about 3.5 s of one core here). */
const LOAD_TIMEOUT_MS = 120_000;

export interface Classifier {
  /** The five class probabilities of 224×224 RGB pixels; rejects when the worker fails or takes too long. */
  classify(rgb: Buffer): Promise<NsfwScores>;
  /** Starts loading the model in the background; resolves once loaded (callers may ignore it). */
  warm(): Promise<void>;
  /** Whether the model is loaded in this process. */
  loaded(): boolean;
  /** Stops the worker (the model goes with it). */
  stop(): Promise<void>;
}

interface Pending {
  resolve(answer: NsfwScores | null): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** A classifier whose worker runs `workerFile` (the compiled classifier-worker.js beside this module by default). */
export function createClassifier(workerFile = path.join(__dirname, 'classifier-worker.js'), limits = { classifyMs: CLASSIFY_TIMEOUT_MS, loadMs: LOAD_TIMEOUT_MS }): Classifier {
  let worker: Worker | null = null;
  let ready = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(error: Error): void {
    for (const job of pending.values()) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    pending.clear();
  }

  function stopWorker(reason: Error): void {
    const stopping = worker;
    worker = null;
    ready = false;
    failAll(reason);
    void stopping?.terminate();
  }

  function start(): Worker {
    const started = new Worker(workerFile);
    // Never what keeps a process alive.
    started.unref();
    started.on('message', (answer: ClassifierAnswer) => {
      const job = pending.get(answer.id);
      if (!job) return;
      pending.delete(answer.id);
      clearTimeout(job.timer);
      if ('error' in answer) {
        job.reject(new Error(answer.error));
        return;
      }
      ready = true;
      job.resolve(answer.scores);
    });
    started.on('error', (error) => {
      if (worker === started) stopWorker(new Error(`the classifier's worker failed: ${error.message}`));
    });
    started.on('exit', (code) => {
      if (worker === started) stopWorker(new Error(`the classifier's worker exited (${code})`));
    });
    return started;
  }

  function send(job: ClassifierTask, transfer: ArrayBuffer[] = []): Promise<NsfwScores | null> {
    worker ??= start();
    const id = nextId++;
    const target = worker;
    // Until the model has loaded, a job waits for the load too.
    const timeoutMs = ready ? limits.classifyMs : limits.loadMs + limits.classifyMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (worker === target) stopWorker(new Error(`the classifier took longer than ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      const message: ClassifierJob = { ...job, id };
      target.postMessage(message, transfer);
    });
  }

  return {
    async classify(rgb: Buffer): Promise<NsfwScores> {
      // A copy the worker takes over: the caller's buffer may be pooled.
      const bytes = new Uint8Array(rgb);
      return (await send({ kind: 'classify', rgb: bytes }, [bytes.buffer])) as NsfwScores;
    },
    async warm(): Promise<void> {
      await send({ kind: 'warm' });
    },
    loaded: () => ready,
    async stop(): Promise<void> {
      const stopping = worker;
      worker = null;
      ready = false;
      failAll(new Error('the classifier stopped'));
      await stopping?.terminate();
    },
  };
}

/** The process's classifier: Strapi is one per process, and so is the model. */
let shared: Classifier | null = null;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  shared ??= createClassifier();
  const classifier = shared;
  return {
    classify: (rgb: Buffer) => classifier.classify(rgb),
    /** Starts loading the model; never fails (a failed load is logged, and tried again by the next classification). */
    warm(): void {
      classifier.warm().catch((error: Error) => strapi.log.warn(`image-api: the classifier's model did not load: ${error.message}`));
    },
    loaded: () => classifier.loaded(),
    stop: () => classifier.stop(),
  };
};
