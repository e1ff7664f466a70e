/**
 * `Idempotency-Key` (docs/api.md, "Retrying an upload"): an upload sent with one is remembered per
 * API key for 24 hours, in the database (content type `idempotent-upload`), in the transaction that
 * records the upload; the same request again answers the first upload's answer instead of storing
 * the image again. Two requests racing with the same key store one image: the second one's
 * transaction fails on the unique index, its files are removed, and it answers the first's answer.
 *
 * The delete link's secret is never stored: the delete link of such an upload is derived from the
 * server's key hash secret, the API key, the Idempotency-Key and the image, so a replay can give it
 * again.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { IDEMPOTENT_UPLOAD_UID, IMAGE_UID } from '../config/constants';
import { getService } from '../get-service';
import type { StoredImage } from '../protocol/image-json';
import { databaseClock } from '../database/database-clock';
import { createRowWriter } from '../database/sql-rows';

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** 1 to 255 visible ASCII characters (what the IETF draft and common APIs accept). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
export const isValidIdempotencyKey = (value: string) => VALID_KEY.test(value);

/** Who asked, with which Idempotency-Key. */
export interface IdempotencyScope {
  apiKeyId: number;
  key: string;
}

/** StoredImage as the row keeps it: JSON, dates as ISO text, no delete link. */
type RememberedImage = Omit<StoredImage, 'deleteUrl' | 'createdAt' | 'expiresAt'> & { createdAt: string; expiresAt: string | null };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = createRowWriter(strapi);
  const table = () => rows.model(IDEMPOTENT_UPLOAD_UID).tableName;
  const column = (attribute: string) => rows.model(IDEMPOTENT_UPLOAD_UID).attributes[attribute].columnName ?? attribute;
  // Ages on the database's clock: every instance agrees on them (database/database-clock.ts).
  const clock = databaseClock(strapi);

  return {
    /** The delete link secret of the upload made with `scope` (64 hex characters). */
    deleteSecret(scope: IdempotencyScope, idEncoded: string): string {
      return getService(strapi, 'api-keys').keyedDigest(`delete-link\n${scope.apiKeyId}\n${scope.key}\n${idEncoded}`);
    },

    /** The answer of the upload made with `scope` in the last 24 hours, if its image is still there. */
    async find(scope: IdempotencyScope): Promise<StoredImage | null> {
      const row = await clock
        .youngerThan(
          strapi.db.connection(table()).select(column('id_encoded'), column('answer')).where({ [column('api_key_id')]: scope.apiKeyId, [column('idempotency_key')]: scope.key }),
          column('createdAt'),
          IDEMPOTENCY_WINDOW_MS
        )
        .first();
      if (!row) return null;
      const idEncoded: string = row[column('id_encoded')];
      const image = await getService(strapi, 'images').findForRemoval(idEncoded);
      if (!image) return null;
      const raw = row[column('answer')];
      const answer = (typeof raw === 'string' ? JSON.parse(raw) : raw) as RememberedImage;
      return {
        ...answer,
        createdAt: new Date(answer.createdAt),
        expiresAt: answer.expiresAt ? new Date(answer.expiresAt) : null,
        // An image of a key that reuses or refuses duplicates has the link duplicates.ts derives.
        deleteUrl: getService(strapi, 'public-url').deleteLink(
          idEncoded,
          answer.sourceDigest ? getService(strapi, 'duplicates').deleteSecret(answer.sourceDigest, idEncoded) : this.deleteSecret(scope, idEncoded)
        ),
      };
    },

    /**
     * Remembers the upload's answer, in the transaction that records it. A row of the same key that
     * is past its 24 hours, or whose image is gone, makes room; a live one fails the transaction
     * (a unique violation: the caller answers the first upload's answer).
     */
    async remember(trx: Knex.Transaction, scope: IdempotencyScope, image: StoredImage): Promise<void> {
      const { deleteUrl, createdAt, expiresAt, ...rest } = image;
      const answer: RememberedImage = { ...rest, createdAt: createdAt.toISOString(), expiresAt: expiresAt?.toISOString() ?? null };
      const images = rows.model(IMAGE_UID);
      const imageIdColumn = images.attributes.id_encoded.columnName ?? 'id_encoded';
      await trx(table())
        .where({ [column('api_key_id')]: scope.apiKeyId, [column('idempotency_key')]: scope.key })
        .andWhere((stale) =>
          clock
            .olderThan(stale, column('createdAt'), IDEMPOTENCY_WINDOW_MS)
            .orWhereNotExists((gone) => gone.select(trx.raw('1')).from(images.tableName).whereRaw('?? = ??', [`${images.tableName}.${imageIdColumn}`, `${table()}.${column('id_encoded')}`]))
        )
        .del();
      const now = clock.now();
      await rows.insert(
        trx,
        table(),
        rows.toRow(IDEMPOTENT_UPLOAD_UID, {
          api_key_id: scope.apiKeyId,
          idempotency_key: scope.key,
          id_encoded: image.idEncoded,
          answer,
          createdAt: now,
          updatedAt: now,
          publishedAt: now,
        })
      );
    },

    /** Deletes rows past their 24 hours; returns how many. */
    async sweep(): Promise<number> {
      return Number(await clock.olderThan(strapi.db.connection(table()), column('createdAt'), IDEMPOTENCY_WINDOW_MS).del());
    },
  };
};
