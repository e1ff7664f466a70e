/**
 * What moderation decides for one upload (docs/moderation.md, "Modes"), from the key's mode and
 * threshold (or the `moderation` option's), the classifier's scores and the client's own `nsfw=1`,
 * which always counts as past the threshold.
 */
import type { ModerationMode, ModerationState } from '../config/constants';
import type { NsfwScores } from '../../../shared/contracts/review';

/** The classifier's five classes (nsfwjs), each a probability; they sum to 1 (the review page shows them too). */
export type { NsfwScores };

export interface ModerationPolicy {
  mode: ModerationMode;
  /** The NSFW score at or past which the mode acts, 0 to 1. */
  threshold: number;
}

/** The key's own mode and threshold, each falling back to the option's. */
export function policyFor(key: { moderation: ModerationMode | null; moderationThreshold: number | null }, defaults: { mode: ModerationMode; threshold: number }): ModerationPolicy {
  return { mode: key.moderation ?? defaults.mode, threshold: key.moderationThreshold ?? defaults.threshold };
}

/**
 * One number for "not safe for work": the probability of the three classes that are (porn, hentai,
 * sexy), so that 1 − score is the probability of neutral or drawing. Rounded to 4 decimals, as stored.
 */
export const nsfwScore = (scores: NsfwScores): number => Math.round(Math.min(1, Math.max(0, scores.porn + scores.hentai + scores.sexy)) * 10_000) / 10_000;

export interface Verdict {
  /** What the image's record says (`none` when nothing is past the threshold). */
  state: ModerationState;
  /** The image's `nsfw` field. */
  nsfw: boolean;
  /** Refused: 422, code 106, nothing stored. */
  refuse: boolean;
}

/**
 * The verdict on an upload. `score` is null when it was not classified (mode `off`). Past the
 * threshold: `flag` marks it (public, its viewer page asks first), `hold` keeps it unserved until
 * approved, `refuse` refuses it; `off` only carries the client's `nsfw`.
 */
export function verdict(policy: ModerationPolicy, score: number | null, clientNsfw: boolean): Verdict {
  const past = clientNsfw || (score !== null && score >= policy.threshold);
  if (!past || policy.mode === 'off') return { state: 'none', nsfw: clientNsfw, refuse: false };
  if (policy.mode === 'refuse') return { state: 'none', nsfw: true, refuse: true };
  return { state: policy.mode === 'hold' ? 'held' : 'flagged', nsfw: true, refuse: false };
}
