/** The messages between classifier.ts and its worker thread (classifier-worker.ts). */
import type { NsfwScores } from './moderation-modes';

/** What is asked: load the model, or classify 224×224 RGB pixels. */
export type ClassifierTask = { kind: 'warm' } | { kind: 'classify'; rgb: Uint8Array };

export type ClassifierJob = ClassifierTask & { id: number };

/** `scores` null: the answer to `warm` (the model is loaded). */
export type ClassifierAnswer = { id: number; scores: NsfwScores | null } | { id: number; error: string };
