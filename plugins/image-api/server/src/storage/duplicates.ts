/**
 * Duplicates per key (docs/api.md, "Duplicates and quotas"): a key entry's `duplicates` setting decides what an upload whose
 * bytes equal an earlier live upload of the same key does: `store` it again (the default), `reuse`
 * the earlier image (its answer again; nothing stored, nothing counted), or `refuse` it (409, code 101).
 *
 * "The same bytes" is the bytes the client sent, before any image work: the image record of a key
 * that reuses or refuses keeps SHA-256 of its key's id and those bytes (`source_digest`), under a
 * unique index. So finding the earlier image is one indexed lookup, however many images there are,
 * and two identical uploads at once cannot both be recorded: the second one's insert fails on the
 * index, its files go, and it answers as a duplicate of the first (api/upload-pipeline.ts).
 *
 * The delete link of such an image is derived (HMAC with the key hash secret, as idempotency.ts does)
 * rather than random, so a reused answer can carry the link the first answer gave.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { IMAGE_UID } from '../config/constants';
import { errors } from '../http/api-error';
import type { StoredImage } from '../protocol/image-json';
import type { AuthenticatedKey } from '../protocol/authenticated-key';
import { getService } from '../get-service';

/** An image's answer as its record keeps it: JSON, dates as ISO text, no delete link. */
export type SavedAnswer = Omit<StoredImage, 'deleteUrl' | 'createdAt' | 'expiresAt' | 'views'> & { createdAt: string };

export const savedAnswer = ({ deleteUrl, createdAt, expiresAt, views, ...rest }: StoredImage): SavedAnswer => ({
  ...rest,
  createdAt: createdAt.toISOString(),
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const model = () => strapi.db.metadata.get(IMAGE_UID);
  const column = (attribute: string) => (model().attributes[attribute] as { columnName?: string }).columnName ?? attribute;

  return {
    /** The digest an upload of `bytes` with the key is recorded under; null when the key stores duplicates. */
    digestOf(key: AuthenticatedKey, bytes: Buffer): string | null {
      if (key.duplicates === 'store') return null;
      return crypto.createHash('sha256').update(`${key.id}\n`).update(bytes).digest('hex');
    },

    /** The delete link secret of the image recorded under `digest`. */
    deleteSecret(digest: string, idEncoded: string): string {
      return getService(strapi, 'api-keys').keyedDigest(`duplicate\n${digest}\n${idEncoded}`);
    },

    /** The live image recorded under `digest`, as its upload answered it (views as now), or null. */
    async find(digest: string, now = new Date()): Promise<StoredImage | null> {
      const record = await strapi.db.query(IMAGE_UID).findOne({
        where: { source_digest: digest, $or: [{ expires_at: null }, { expires_at: { $gt: now } }] },
        select: ['id_encoded', 'views', 'expires_at', 'answer'],
      });
      if (!record?.answer) return null;
      const answer = (typeof record.answer === 'string' ? JSON.parse(record.answer) : record.answer) as SavedAnswer;
      return {
        ...answer,
        views: Number(record.views),
        createdAt: new Date(answer.createdAt),
        expiresAt: record.expires_at ? new Date(record.expires_at) : null,
        deleteUrl: getService(strapi, 'public-url').deleteLink(answer.idEncoded, this.deleteSecret(digest, answer.idEncoded)),
      };
    },

    /** What the key does with a duplicate of `earlier`: answers it (reuse) or refuses (409/101). */
    answerFor(key: AuthenticatedKey, earlier: StoredImage): StoredImage {
      if (key.duplicates === 'refuse') throw errors.duplicated(earlier.viewerUrl);
      return earlier;
    },

    /**
     * Frees `digest` from an image that has expired but is not swept yet (it is no longer "live"), in
     * the transaction about to record a new image under it.
     */
    async freeExpired(trx: Knex.Transaction, digest: string, now: Date): Promise<void> {
      await trx(model().tableName)
        .where(column('source_digest'), digest)
        .andWhere(column('expires_at'), '<=', now)
        .update({ [column('source_digest')]: null });
    },
  };
};
