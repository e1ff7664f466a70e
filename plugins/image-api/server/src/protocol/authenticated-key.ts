/** The key a request is made with, as the upload API knows it once verified (keys/api-keys.ts reads it). */
import { MODERATION_MODES, type ModerationMode } from '../config/constants';

/** A key entry's `moderation`, as stored: one of the modes, else none (the option's). */
export const moderationModeOf = (value: unknown): ModerationMode | null => ((MODERATION_MODES as readonly unknown[]).includes(value) ? (value as ModerationMode) : null);

/** What a key does with an upload of bytes it stored before (docs/api.md, "Duplicates and quotas"). */
export const DUPLICATES_MODES = ['store', 'reuse', 'refuse'] as const;
export type DuplicatesMode = (typeof DUPLICATES_MODES)[number];

/** What authentication hands to the request: who it is, under which limits, and where its uploads go. */
export interface AuthenticatedKey {
  id: number;
  name: string;
  rateLimit: string | null;
  /** The admin user the key belongs to. */
  adminOwnerId: number | null;
  /** The users-permissions user the key belongs to (when that plugin is installed). */
  siteUserOwnerId: number | null;
  /** The admin who created the key's entry, when an admin did (the CLI is nobody). */
  issuedByAdminId: number | null;
  /** Expiration of uploads that ask none (seconds or an ISO 8601 duration); null: none. */
  defaultExpiration: string | null;
  /** The Media Library folder its uploads go to; null: the plugin's folder. */
  folderId: number | null;
  /** What an upload of bytes it stored before does (storage/duplicates.ts). */
  duplicates: DuplicatesMode;
  /** Caps on its live images' bytes and count; null: none (keys/quotas.ts). */
  quotaBytes: number | null;
  quotaImages: number | null;
  /** Its moderation and threshold (docs/moderation.md); null: the `moderation` option's. */
  moderation: ModerationMode | null;
  moderationThreshold: number | null;
}
