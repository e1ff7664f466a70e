/** What the plugin's admin routes answer (server/src/services/admin/usage-report.ts). */
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

/** "1.4 MB": bytes as the Media Library shows sizes (1000-based). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export const formatDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
