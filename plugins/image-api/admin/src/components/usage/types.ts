/**
 * What the plugin's admin routes answer: a copy of server/src/services/admin/usage-report.ts's types
 * (the admin is built apart from the server and cannot import them), plus the caller's permissions.
 */
export interface DayUsage {
  day: string;
  uploads: number;
  views: number;
  bytesAdded: number;
}

export interface ImageCard {
  idEncoded: string;
  documentId: string;
  title: string | null;
  originalFilename: string | null;
  views: number;
  createdAt: string;
  expiresAt: string | null;
  thumbUrl: string | null;
  viewerUrl: string;
  key: { id: number; name: string } | null;
}

export interface Overview {
  days: DayUsage[];
  totals: { images: number; storageBytes: number; views: number; uploadsInWindow: number; viewsInWindow: number };
  topViewed: ImageCard[];
  recent: ImageCard[];
  permissions: { keys: boolean; reveal: boolean; deleteImages: boolean };
}

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
}

/**
 * Base-1000 units, at most one decimal ("512 B", "17.4 KB", "3 MB"), as the viewer page writes sizes
 * (server/src/http/image-json.ts, formatSize: the admin bundle cannot import it).
 */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (unit < units.length - 1 && +value.toFixed(1) >= 1000) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : +value.toFixed(1)} ${units[unit]}`;
}

/** What an image is called on the page: its title, else the client's file name, else its id. */
export const imageLabel = (image: ImageCard) => image.title ?? image.originalFilename ?? image.idEncoded;

export const formatDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
