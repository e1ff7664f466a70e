/**
 * Who sees which field, in one place: what field-protection.ts strips from what leaves the server
 * and what query-protection.ts removes from the admin's filters, sorts and searches (docs/security.md,
 * "Server-only fields" and "What the admin may query").
 *
 * - SERVER_ONLY_FIELDS: the plugin's own secrets and bookkeeping, for no role, wherever they appear.
 * - RELATION_VIEWS: what an entry shows when it rides along as a relation of an image or key (the
 *   Content Manager's lists populate them, so do `?populate=` and the Media Library's `related`), and
 *   who may query its fields. An Editor sees which key an image came with and which site user it
 *   belongs to (what names them), not the key's requester or the user's e-mail address, role or state.
 */
import { API_KEY_UID, IMAGE_UID, SITE_USER_UID } from '../config/constants';

/** Fields that never leave the server and are never queried, by content type (stripped by name, at any depth). */
export const SERVER_ONLY_FIELDS: Record<string, string[]> = {
  [API_KEY_UID]: ['key_hash', 'key_encrypted'],
  [IMAGE_UID]: ['delete_hash', 'expiry_claim', 'expiry_claimed_at', 'source_digest', 'answer'],
};

/**
 * Who sees or queries a field: `nobody`, or `readers`, the admins whose role may read that field of
 * the entry's content type in the Content Manager (Super Admins; not Editors and Authors by default,
 * from whom key entries and site users are withdrawn).
 */
export type Audience = 'nobody' | 'readers';

export interface RelationView {
  /** The relation of images and keys that carries it; answers are read by this name. */
  field: string;
  /** What names it: shown to and queried by whoever sees the relation. */
  names: ReadonlySet<string>;
  /** Never shown, never queried, whoever asks (a Super Admin included): each would be a credential or an oracle on one. */
  secrets: ReadonlySet<string>;
  /** Its other fields: in answers, and in filters, sorts and searches. */
  others: { shown: Audience; queried: Audience };
}

/** By the related entry's content type. */
export const RELATION_VIEWS: Readonly<Record<string, RelationView>> = {
  // A key's requester, purpose and limits are read on its own entry (Super Admins), never along an image.
  [API_KEY_UID]: {
    field: 'api_key',
    names: new Set(['id', 'documentId', 'name', 'key_prefix', 'key_last4', 'active', 'locale', 'publishedAt']),
    secrets: new Set(SERVER_ONLY_FIELDS[API_KEY_UID]),
    others: { shown: 'nobody', queried: 'readers' },
  },
  // The users-permissions user an image or key belongs to (register.ts adds the relation). Its
  // password hash and tokens are `private` to Strapi: the Content Manager hides them, the document
  // service does not.
  [SITE_USER_UID]: {
    field: 'owner_user',
    names: new Set(['id', 'documentId', 'username']),
    secrets: new Set(['password', 'resetPasswordToken', 'confirmationToken']),
    others: { shown: 'readers', queried: 'readers' },
  },
};

/** The Content Manager's read action: what makes an admin a reader of a field. */
const READ = 'plugin::content-manager.explorer.read';

/** An admin's abilities (`ctx.state.userAbility`, a permissions manager's `ability`). */
export interface Ability {
  can(action: string, subject: string, field?: string): boolean;
}

/** Whether the holder of `ability` reads `field` of `uid` in the Content Manager; no ability reads nothing. */
export function readerOf(ability: Ability | undefined): (uid: string, field: string) => boolean {
  if (typeof ability?.can !== 'function') return () => false;
  const cache = new Map<string, boolean>();
  return (uid, field) => {
    const key = `${uid}\0${field}`;
    let readable = cache.get(key);
    if (readable === undefined) {
      readable = ability.can(READ, uid, field);
      cache.set(key, readable);
    }
    return readable;
  };
}

/** Whether `audience` includes a reader of `field` of `uid` (`reads`: readerOf's answer). */
export const inAudience = (audience: Audience, reads: (uid: string, field: string) => boolean, uid: string, field: string): boolean =>
  audience === 'readers' && reads(uid, field);
