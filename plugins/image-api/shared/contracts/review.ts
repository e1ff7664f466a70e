/**
 * The review of moderation (docs/moderation.md, "Review"): what `/image-api/review/...` answers
 * (server/src/moderation/review.ts makes it, server/src/moderation/review-admin-controller.ts sends
 * it, admin/src/pages/ReviewPage.tsx shows it). Dates are ISO strings.
 */
import type { ModerationState, ReportReason } from '../identity';

/** The classifier's five classes, each a probability from 0 to 1. */
export interface NsfwScores {
  drawing: number;
  hentai: number;
  neutral: number;
  porn: number;
  sexy: number;
}

/** One of an image's reports, as the queue shows it (never who sent it). */
export interface QueueReport {
  reason: ReportReason;
  text: string | null;
  createdAt: string;
}

/** An image in the review queue. */
export interface QueueItem {
  idEncoded: string;
  createdAt: string;
  /** When it entered the queue. */
  reviewSince: string;
  nsfw: boolean;
  moderation: ModerationState;
  /** null: not classified. */
  nsfwScore: number | null;
  nsfwScores: NsfwScores | null;
  reportCount: number;
  /** Its latest reports, newest first (at most QUEUE_REPORTS_SHOWN). */
  reports: QueueReport[];
  /** The name of the key it was uploaded with; null for none. */
  keyName: string | null;
  width: number | null;
  height: number | null;
  /** The admin route that serves its thumbnail to reviewers (its public URLs may answer 404). */
  thumbnailPath: string;
}

export interface QueuePage {
  items: QueueItem[];
  page: number;
  pageSize: number;
  /** Images in the queue. */
  total: number;
}

/** Reports shown per image in the queue. */
export const QUEUE_REPORTS_SHOWN = 5;
/** Images per page of the queue: 20 unless asked, at most 100. */
export const QUEUE_PAGE_SIZE = 20;
export const QUEUE_PAGE_SIZE_MAX = 100;

/** A takedown's or block's reason: required, at most this many characters. */
export const TAKEDOWN_REASON_MAX = 500;

/** The kinds of hash a blocklist holds and imports (one hex hash a line). */
export const BLOCK_KINDS = ['sha256', 'md5', 'pdq'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/** A hash list's largest body, 10 MB (a list of about 150,000 SHA-256 hashes). */
export const HASH_LIST_MAX_BYTES = 10_000_000;

/** What an import answers. */
export interface ImportAnswer {
  added: number;
  /** Lines whose hash was listed already, or came earlier in the list. */
  duplicates: number;
  /** Line numbers (from 1) of the first lines that hold no hash of the kind (a few at most). */
  invalid: number[];
  invalidCount: number;
}

/** Entries of each kind on the blocklist. */
export type BlocklistCounts = Record<BlockKind, number>;

/** What blocking an image added to the blocklist (its PDQ null when the image has none worth keeping). */
export interface BlockAnswer {
  sha256: string;
  md5: string;
  pdq: string | null;
}
