/**
 * API keys: issued with a recognisable prefix, stored only as a keyed hash (HMAC-SHA256 with a
 * server secret), looked up by that hash.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import { errors } from './api-error';
import { randomId } from './naming';

const KEY_UID = 'plugin::image-api.api-key';
export const KEY_PREFIX = 'img_';

export interface ApiKeyEntry {
  id: number;
  documentId: string;
  name: string;
  description: string | null;
  active: boolean;
  key_prefix: string;
  createdAt: string;
}

export const generateKey = () => `${KEY_PREFIX}${randomId(32)}`;

export const hashKey = (key: string, secret: string) => crypto.createHmac('sha256', secret).update(key).digest('hex');

/** Enough of the key to recognise it in a list, not enough to use it. */
export const displayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 4);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const secret = (): string => {
    const value: string | undefined =
      strapi.plugin('image-api').config<string | null>('keyHashSecret') ||
      strapi.config.get<string | undefined>('admin.apiToken.salt');
    if (!value) throw new Error('image-api: set IMAGE_API_KEY_SECRET (the HMAC secret of API key hashes)');
    return value;
  };
  const query = () => strapi.db.query(KEY_UID);
  const fields = ['id', 'documentId', 'name', 'description', 'active', 'key_prefix', 'createdAt'];

  return {
    /** The active entry of a key, or the contract's 401/403. */
    async authenticate(key: string | null): Promise<ApiKeyEntry> {
      if (!key) throw errors.noKey();
      const entry = (await query().findOne({ where: { key_hash: hashKey(key, secret()) }, select: fields })) as
        | ApiKeyEntry
        | null;
      if (!entry) throw errors.invalidKey();
      if (!entry.active) throw errors.revokedKey();
      return entry;
    },

    /** Issues a key; the clear key is returned once and never stored. */
    async create(input: { name: string; description?: string | null; key?: string }) {
      const key = input.key ?? generateKey();
      const entry = (await query().create({
        data: {
          name: input.name,
          description: input.description ?? null,
          active: true,
          key_prefix: displayPrefix(key),
          key_hash: hashKey(key, secret()),
          publishedAt: new Date(),
        },
        select: fields,
      })) as ApiKeyEntry;
      return { entry, key };
    },

    async list(): Promise<ApiKeyEntry[]> {
      return (await query().findMany({ select: fields, orderBy: { id: 'asc' } })) as ApiKeyEntry[];
    },

    /** Deactivates a key by name; false when no key has that name. */
    async revoke(name: string): Promise<boolean> {
      const entry = await query().findOne({ where: { name }, select: ['id'] });
      if (!entry) return false;
      await query().update({ where: { id: entry.id }, data: { active: false } });
      return true;
    },

    /**
     * Makes sure `key` has an entry (IMAGE_API_BOOTSTRAP_KEY), named after its prefix. An entry an
     * admin revoked stays revoked.
     */
    async ensure(key: string): Promise<void> {
      const existing = await query().findOne({ where: { key_hash: hashKey(key, secret()) }, select: ['id'] });
      if (existing) return;
      await this.create({ name: `bootstrap ${displayPrefix(key)}`, description: 'IMAGE_API_BOOTSTRAP_KEY', key });
    },
  };
};
