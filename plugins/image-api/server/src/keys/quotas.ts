/**
 * Per-key quotas (docs/api.md, "Duplicates and quotas"): a key entry may cap its live images' count (`quota_images`) and
 * total bytes (`quota_bytes`: every stored file, original and variants, as the usage page counts
 * them). The key's row keeps what it holds (`live_images`, `live_bytes`), changed only inside the
 * transactions that record an upload or delete images, so the figures are exact.
 *
 * An upload is charged by one conditional UPDATE of the key's row: it adds the image only where the
 * result stays within both caps. The database re-checks the condition on the row it locks, so two
 * uploads racing for the last place, on one instance or several, get one success and one refusal
 * (403, code 105), on all three databases; the refused upload's transaction, files and all, goes.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { API_KEY_UID } from '../config/constants';
import { errors } from '../http/api-error';
import { formatSize } from '../../../shared/format-size';
import { storedBytes, type SizedFile } from '../storage/usage-tally';
import type { AuthenticatedKey } from './api-keys';

/** What a key holds against its caps. */
export interface KeyUse {
  images: number;
  bytes: number;
}

const imagesQuota = (quota: number) => errors.quotaExceeded(`at most ${quota} image${quota === 1 ? '' : 's'} for this key`);
const bytesQuota = (quota: number) => errors.quotaExceeded(`at most ${formatSize(quota)} of images for this key`);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const meta = () => strapi.db.metadata.get(API_KEY_UID);
  const column = (name: string) => (meta().attributes[name] as { columnName?: string }).columnName ?? name;
  const knex = () => strapi.db.connection;
  /** `COALESCE(column, 0) + n`, as a raw expression. */
  const plus = (name: string, n: number) => knex().raw('COALESCE(??, 0) + ?', [column(name), n]);
  /** Never below zero: a count off by a deletion an older version missed must not go negative. */
  const minus = (name: string, n: number) =>
    knex().raw('CASE WHEN COALESCE(??, 0) > ? THEN COALESCE(??, 0) - ? ELSE 0 END', [column(name), n, column(name), n]);

  async function useOf(keyId: number, trx?: Knex): Promise<KeyUse> {
    const row = await (trx ?? knex())(meta().tableName).where('id', keyId).first(column('live_images'), column('live_bytes'));
    return { images: Number(row?.[column('live_images')] ?? 0), bytes: Number(row?.[column('live_bytes')] ?? 0) };
  }

  return {
    useOf,

    /**
     * Refuses at once an upload that cannot fit whatever its size (the key is at its image cap, or
     * at its byte cap): before the download and the image work. The charge decides for the rest.
     */
    async checkRoom(key: AuthenticatedKey): Promise<void> {
      if (key.quotaImages === null && key.quotaBytes === null) return;
      const use = await useOf(key.id);
      if (key.quotaImages !== null && use.images >= key.quotaImages) throw imagesQuota(key.quotaImages);
      if (key.quotaBytes !== null && use.bytes >= key.quotaBytes) throw bytesQuota(key.quotaBytes);
    },

    /**
     * Counts an upload against the key, in the upload's transaction, in the one UPDATE of the key's
     * row: one image of `file`'s bytes more, its upload count and last use; refused past a cap
     * (403/105). Only stored uploads count, and concurrent ones exactly.
     */
    async charge(trx: Knex.Transaction, key: AuthenticatedKey, file: SizedFile): Promise<void> {
      const bytes = storedBytes(file);
      const updated = await knex()(meta().tableName)
        .transacting(trx)
        .where('id', key.id)
        .andWhere((within) =>
          within.whereNull(column('quota_images')).orWhere(plus('live_images', 1), '<=', knex().ref(column('quota_images')))
        )
        .andWhere((within) =>
          within.whereNull(column('quota_bytes')).orWhere(plus('live_bytes', bytes), '<=', knex().ref(column('quota_bytes')))
        )
        .update({
          [column('live_images')]: plus('live_images', 1),
          [column('live_bytes')]: plus('live_bytes', bytes),
          [column('upload_count')]: plus('upload_count', 1),
          [column('last_used_at')]: new Date(),
        });
      if (Number(updated) > 0) return;
      // Refused: say which cap (the caps as the row has them now, not as the cached key had them).
      const row = await knex()(meta().tableName).transacting(trx).where('id', key.id).first(column('quota_images'), column('quota_bytes'), column('live_images'));
      const quotaImages = row?.[column('quota_images')];
      if (quotaImages != null && Number(row[column('live_images')] ?? 0) + 1 > Number(quotaImages)) throw imagesQuota(Number(quotaImages));
      throw bytesQuota(Number(row?.[column('quota_bytes')] ?? 0));
    },

    /** Gives deleted images' room back, in the transaction that deletes their records. */
    async release(trx: Knex, images: Array<{ keyId: number | null; file: SizedFile | null }>): Promise<void> {
      const byKey = new Map<number, KeyUse>();
      for (const { keyId, file } of images) {
        if (keyId === null) continue;
        const use = byKey.get(keyId) ?? { images: 0, bytes: 0 };
        use.images += 1;
        use.bytes += storedBytes(file);
        byKey.set(keyId, use);
      }
      for (const [keyId, use] of byKey) {
        await trx(meta().tableName)
          .where('id', keyId)
          .update({ [column('live_images')]: minus('live_images', use.images), [column('live_bytes')]: minus('live_bytes', use.bytes) });
      }
    },

  };
};
