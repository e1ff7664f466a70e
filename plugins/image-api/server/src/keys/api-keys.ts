/**
 * API keys: issued with a recognisable prefix; stored as an HMAC-SHA256 (server secret) for lookup,
 * compared in constant time, plus a copy encrypted with Strapi's ENCRYPTION_KEY so an admin can
 * reveal it again. Lookups are cached for `keyCacheMs` (2 s): any change to a key entry
 * (keys/key-changes.ts) clears the cache of the instance it happened on at once, and the others'
 * lookups expire within that time, inside the 5 s the product allows. Expiry is checked against the clock on every request.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import { errors } from '../http/api-error';
import { randomId } from '../images/naming';
import { getConfig, getService } from '../get-service';
import { isUniqueViolation } from '../database/unique-violation';
import { ADMIN_USER_UID, API_KEY_UID, type ModerationMode } from '../config/constants';
import { DUPLICATES_MODES, moderationModeOf, type AuthenticatedKey, type DuplicatesMode } from '../protocol/authenticated-key';

export type { AuthenticatedKey, DuplicatesMode };

export const KEY_PREFIX = 'img_';

export interface ApiKeyEntry {
  id: number;
  documentId: string;
  name: string;
  description: string | null;
  contact: string | null;
  active: boolean;
  expires_at: string | null;
  rate_limit: string | null;
  last_used_at: string | null;
  upload_count: number;
  duplicates: DuplicatesMode;
  quota_bytes: number | string | null;
  quota_images: number | null;
  moderation: ModerationMode | null;
  moderation_threshold: number | null;
  live_images: number | null;
  live_bytes: number | string | null;
  key_prefix: string;
  key_last4: string;
  createdAt: string;
  owner?: { id: number; email: string } | null;
}


export const generateKey = () => `${KEY_PREFIX}${randomId(32)}`;
export const hashKey = (key: string, secret: string) => crypto.createHmac('sha256', secret).update(key).digest('hex');
/** Enough of the key to recognise it in a list, not enough to use it. */
export const displayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 4);

export const isExpired = (expiresAt: string | Date | null | undefined, now = new Date()) =>
  !!expiresAt && new Date(expiresAt).getTime() <= now.getTime();

/** Constant-time equality of two hex digests. */
export const sameDigest = (a: string, b: string) =>
  a.length === b.length && crypto.timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

const LIST_FIELDS = [
  'id', 'documentId', 'name', 'description', 'contact', 'active', 'expires_at', 'rate_limit', 'last_used_at',
  'upload_count', 'key_prefix', 'key_last4', 'createdAt', 'duplicates', 'quota_bytes', 'quota_images', 'live_images', 'live_bytes',
  'moderation', 'moderation_threshold',
];

interface CachedKey {
  key: AuthenticatedKey & { active: boolean; expiresAt: string | null };
  until: number;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const cache = new Map<string, CachedKey>();
  // A key entry changed on this instance (keys/key-changes.ts): the next request reads it again.
  getService(strapi, 'key-changes').subscribe(() => cache.clear());
  const secret = (): string => {
    const value: string | undefined =
      getConfig(strapi).keyHashSecret ||
      strapi.config.get<string | undefined>('admin.apiToken.salt');
    if (!value) throw new Error('image-api: set IMAGE_API_KEY_SECRET (the HMAC secret of API key hashes)');
    return value;
  };
  const query = () => strapi.db.query(API_KEY_UID);
  const encryption = () => strapi.service('admin::encryption') as { encrypt(v: string): string | null; decrypt(v: string): string | null };

  async function adminIdFor(email: string | null | undefined): Promise<number | null> {
    if (!email) return null;
    const user = await strapi.db.query(ADMIN_USER_UID).findOne({ where: { email: email.toLowerCase() }, select: ['id'] });
    if (!user) throw new Error(`no admin user with the email ${email}`);
    return user.id;
  }

  return {
    /** HMAC-SHA256 (hex) of `text` with the key hash secret: a value only this server can compute. */
    keyedDigest: (text: string): string => hashKey(text, secret()),

    /** The columns that stand for `key` (hash, recognisable parts, encrypted copy). */
    keyColumns(key: string) {
      return {
        key_hash: hashKey(key, secret()),
        key_prefix: displayPrefix(key),
        key_last4: key.slice(-4),
        key_encrypted: encryption().encrypt(key),
      };
    },

    /** The active, unexpired entry of a key, or the error table's 401/403. */
    async authenticate(key: string | null): Promise<AuthenticatedKey> {
      if (!key) throw errors.noKey();
      const digest = hashKey(key, secret());
      let cached = cache.get(digest);
      if (!cached || cached.until < Date.now()) {
        const hasUserOwner = 'owner_user' in strapi.contentType(API_KEY_UID).attributes;
        const entry = await query().findOne({
          where: { key_hash: digest },
          select: ['id', 'name', 'active', 'expires_at', 'rate_limit', 'default_expiration', 'key_hash', 'duplicates', 'quota_bytes', 'quota_images', 'moderation', 'moderation_threshold'],
          populate: {
            owner: { select: ['id'] },
            createdBy: { select: ['id'] },
            folder: { select: ['id'] },
            ...(hasUserOwner ? { owner_user: { select: ['id'] } } : {}),
          },
        });
        if (!entry || !sameDigest(entry.key_hash, digest)) throw errors.invalidKey();
        cached = {
          key: {
            id: entry.id,
            name: entry.name,
            rateLimit: entry.rate_limit || null,
            adminOwnerId: entry.owner?.id ?? null,
            siteUserOwnerId: entry.owner_user?.id ?? null,
            issuedByAdminId: entry.createdBy?.id ?? null,
            defaultExpiration: entry.default_expiration || null,
            folderId: entry.folder?.id ?? null,
            duplicates: DUPLICATES_MODES.includes(entry.duplicates) ? entry.duplicates : 'store',
            quotaBytes: entry.quota_bytes == null ? null : Number(entry.quota_bytes),
            quotaImages: entry.quota_images == null ? null : Number(entry.quota_images),
            moderation: moderationModeOf(entry.moderation),
            moderationThreshold: entry.moderation_threshold == null ? null : Number(entry.moderation_threshold),
            active: entry.active,
            expiresAt: entry.expires_at ?? null,
          },
          until: Date.now() + getConfig(strapi).keyCacheMs,
        };
        cache.set(digest, cached);
      }
      const { active, expiresAt, ...found } = cached.key;
      if (!active) throw errors.revokedKey();
      if (isExpired(expiresAt)) throw errors.expiredKey();
      return found;
    },

    /** Issues a key; the clear key is returned and otherwise only kept encrypted. */
    async create(input: {
      name: string;
      description?: string | null;
      contact?: string | null;
      expiresAt?: Date | null;
      rateLimit?: string | null;
      ownerEmail?: string | null;
      key?: string;
      duplicates?: DuplicatesMode;
      quotaBytes?: number | null;
      quotaImages?: number | null;
      moderation?: ModerationMode | null;
      moderationThreshold?: number | null;
    }) {
      const key = input.key ?? generateKey();
      const owner = await adminIdFor(input.ownerEmail);
      const entry = (await query().create({
        data: {
          name: input.name,
          description: input.description ?? null,
          contact: input.contact ?? null,
          active: true,
          expires_at: input.expiresAt ?? null,
          rate_limit: input.rateLimit ?? null,
          duplicates: input.duplicates ?? 'store',
          quota_bytes: input.quotaBytes ?? null,
          quota_images: input.quotaImages ?? null,
          moderation: input.moderation ?? null,
          moderation_threshold: input.moderationThreshold ?? null,
          owner,
          upload_count: 0,
          ...this.keyColumns(key),
          publishedAt: new Date(),
        },
        select: LIST_FIELDS,
      })) as ApiKeyEntry;
      return { entry, key };
    },

    async list(): Promise<ApiKeyEntry[]> {
      return (await query().findMany({
        select: LIST_FIELDS,
        populate: { owner: { select: ['id', 'email'] } },
        orderBy: { id: 'asc' },
      })) as ApiKeyEntry[];
    },

    /** Keys whose own moderation classifies (`flag`, `hold`, `refuse`): the classifier is loaded at boot for them. */
    async countModerated(): Promise<number> {
      return query().count({ where: { moderation: { $in: ['flag', 'hold', 'refuse'] } } });
    },

    async findByName(name: string) {
      return query().findOne({ where: { name }, select: ['id', 'documentId'] });
    },

    /** Deactivates a key by name; false when no key has that name. */
    async revoke(name: string): Promise<boolean> {
      const entry = await this.findByName(name);
      if (!entry) return false;
      await query().update({ where: { id: entry.id }, data: { active: false } });
      return true;
    },

    /** A new secret for the same entry; the old key stops working at once. */
    async regenerate(where: { name: string } | { documentId: string }): Promise<string | null> {
      const entry = await query().findOne({ where, select: ['id'] });
      if (!entry) return null;
      const key = generateKey();
      await query().update({ where: { id: entry.id }, data: this.keyColumns(key) });
      return key;
    },

    /** The clear key of an entry, for an admin; null without an encrypted copy (or ENCRYPTION_KEY). */
    async reveal(documentId: string): Promise<string | null> {
      const entry = await query().findOne({ where: { documentId }, select: ['key_encrypted'] });
      if (!entry?.key_encrypted) return null;
      return encryption().decrypt(entry.key_encrypted);
    },

    /**
     * Makes sure `key` has an entry (IMAGE_API_BOOTSTRAP_KEY), named after its prefix. An entry an
     * admin revoked stays revoked.
     */
    async ensureBootstrapKey(key: string): Promise<void> {
      const existing = await query().findOne({ where: { key_hash: hashKey(key, secret()) }, select: ['id'] });
      if (existing) return;
      try {
        await this.create({ name: `bootstrap ${displayPrefix(key)}`, description: 'IMAGE_API_BOOTSTRAP_KEY', key });
      } catch (error) {
        // Another instance booting at once created it between the lookup and the insert (the unique
        // index on key_hash refused the second row): it exists, which is all that was asked.
        if (!isUniqueViolation(error)) throw error;
      }
    },
  };
};
