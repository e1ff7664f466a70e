/**
 * The "Image API" page's data: what `GET /image-api/usage/...` answers (server/src/admin/
 * usage-report.ts makes it, server/src/admin/usage-admin-controller.ts sends it, admin/src/pages/
 * UsagePage.tsx shows it). Dates are ISO strings; days are UTC `YYYY-MM-DD`.
 */
import type { ServingAnswer } from './serving';
import { formatSize } from '../format-size';

export interface DayUsage {
  day: string;
  uploads: number;
  views: number;
  bytesAdded: number;
}

/** What a key holds against its quotas (docs/api.md, "Duplicates and quotas"; server/src/keys/quotas.ts). */
export interface KeyHolding {
  images: number;
  bytes: number;
  /** null: no cap. */
  quotaImages: number | null;
  quotaBytes: number | null;
}

/**
 * "12 / 1000" and "3.2 MB / 5 GB" (the cap after the slash only when there is one); sizes and counts
 * written by `format` when given (the admin's language: admin/src/hooks/useFormat.ts).
 */
export function holdingParts(
  holding: KeyHolding,
  format: { size: (bytes: number) => string; number: (value: number) => string } = { size: formatSize, number: String }
): { images: string; bytes: string } {
  const { size, number } = format;
  return {
    images: holding.quotaImages === null ? number(holding.images) : `${number(holding.images)} / ${number(holding.quotaImages)}`,
    bytes: holding.quotaBytes === null ? size(holding.bytes) : `${size(holding.bytes)} / ${size(holding.quotaBytes)}`,
  };
}

/** Whether the key is at one of its caps (its next upload is refused). */
export const atQuota = (holding: KeyHolding) =>
  (holding.quotaImages !== null && holding.images >= holding.quotaImages) || (holding.quotaBytes !== null && holding.bytes >= holding.quotaBytes);

export interface KeySummary {
  id: number;
  documentId: string;
  name: string;
  status: 'active' | 'revoked' | 'expired';
  prefix: string | null;
  last4: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  uploads: number;
  uploadsInWindow: number;
  holding: KeyHolding;
}

export interface ImageCard {
  idEncoded: string;
  documentId: string;
  title: string | null;
  /** The client's file name, shown when there is no title. */
  originalFilename: string | null;
  views: number;
  createdAt: string;
  expiresAt: string | null;
  thumbUrl: string | null;
  viewerUrl: string;
  /** The original's direct URL and size (for its transformation URLs and their widths). */
  url: string | null;
  width: number | null;
  height: number | null;
  /** What the card paints while the thumbnail loads: ThumbHash (base64) and `#rrggbb`; null before they were filled in. */
  placeholder: string | null;
  dominantColor: string | null;
  /** Only for admins who may see keys. */
  key: { id: number; name: string } | null;
}

export interface Overview {
  days: DayUsage[];
  totals: { images: number; storageBytes: number; views: number; uploadsInWindow: number; viewsInWindow: number };
  topViewed: ImageCard[];
  recent: ImageCard[];
}

/** What the caller may do on the page; the server checks the same permissions on every route. */
export interface PagePermissions {
  keys: boolean;
  reveal: boolean;
  deleteImages: boolean;
}

/** `GET /image-api/usage/overview?days=N`. */
export type OverviewAnswer = Overview & { permissions: PagePermissions; serving: ServingAnswer };

/** The chart's windows, in days; the server answers 30 for anything else. */
export const USAGE_WINDOWS = [7, 30, 90] as const;
export const DEFAULT_USAGE_WINDOW = 30;
