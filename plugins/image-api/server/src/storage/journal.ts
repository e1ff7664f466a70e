/**
 * The journal of provider files (content type `pending-upload`): a row names an image's files while
 * they may be left without records.
 * - An upload commits its row before writing the files and deletes it in the transaction that records
 *   the upload.
 * - A deletion commits rows before deleting the records, and deletes each once its files are gone.
 * A row that outlives its upload or deletion names files nobody will serve (a crash came in between,
 * or the storage would not delete them): the sweep removes those files, then the row; a row goes only
 * once its files are really gone. Rows are named after the image (unique).
 */
import type { Core } from '@strapi/strapi';
import { IMAGE_UID, PENDING_UPLOAD_UID, RENDITION_UID } from '../config/constants';
import { getService } from '../get-service';
import { databaseClock } from '../database/database-clock';
import { createRowWriter, type Knex } from '../database/sql-rows';

/** The journal row of a transformation result being kept is named after its key. */
export const renditionJournalName = (key: string) => `rendition:${key}`;
const renditionKeyOf = (name: string) => (name.startsWith('rendition:') ? name.slice('rendition:'.length) : null);

/** A provider file, as the journal names it. */
export interface JournalledFile {
  hash: string;
  ext: string;
}

/** A kept transformation result's file, with its URL through the provider (a bucket's CDN may keep it: purge/). */
export type KeptFile = JournalledFile & { url: string };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const { model, toRow, insert } = createRowWriter(strapi);
  const table = () => model(PENDING_UPLOAD_UID).tableName;
  const clock = databaseClock(strapi);
  // Stamped on the database's clock (database/database-clock.ts): the sweep's ages are measured on it.
  const stamps = () => {
    const now = clock.now();
    return { createdAt: now, updatedAt: now, publishedAt: now };
  };

  /** Whether the files a row names have their record: an image's, or a kept transformation's (renditions.ts). */
  const isRecorded = async (name: string) => {
    const rendition = renditionKeyOf(name);
    return rendition === null
      ? Boolean(await strapi.db.query(IMAGE_UID).findOne({ where: { name }, select: ['id'] }))
      : Boolean(await strapi.db.query(RENDITION_UID).findOne({ where: { key: rendition }, select: ['id'] }));
  };

  return {
    /** Journals an upload about to be written (its own statement, committed at once); returns the row id. */
    async open(name: string, files: JournalledFile[]): Promise<number> {
      const row = toRow(PENDING_UPLOAD_UID, { name, files, ...stamps() });
      return insert(strapi.db.connection, table(), row);
    },

    /**
     * Journals the files of several images in one statement: a deletion about to start, or (in its
     * transaction, `trx`) the transformation results it takes with its images.
     */
    async openMany(entries: Array<{ name: string; files: JournalledFile[] }>, trx: Knex = strapi.db.connection): Promise<void> {
      if (entries.length === 0) return;
      const rows = entries.map(({ name, files }) => toRow(PENDING_UPLOAD_UID, { name, files, ...stamps() }));
      await trx(table()).insert(rows);
    },

    /** Deletes a row: its upload was recorded (in `trx`), or its files are gone. */
    async close(id: number, trx: Knex = strapi.db.connection): Promise<void> {
      await trx.raw('delete from ?? where ?? = ?', [table(), 'id', id]);
    },

    /** Whether a row names this image (or transformation: `rendition:<key>`): its files may be there without their record. */
    async holds(name: string): Promise<boolean> {
      return Boolean(await strapi.db.connection(table()).where('name', name).first('id'));
    },

    /** Deletes the rows of these images (their deletion failed before it started, or their files are gone). */
    async closeNames(names: string[]): Promise<void> {
      if (names.length > 0) await strapi.db.connection(table()).whereIn('name', names).del();
    },

    /**
     * Removes the files of rows older than `olderThanMs` whose upload was never recorded, then the
     * rows. Rows whose files the storage would not delete stay, for the next sweep. Returns the
     * number of uploads cleaned.
     */
    async sweep(olderThanMs: number): Promise<number> {
      const createdAt = model(PENDING_UPLOAD_UID).attributes.createdAt?.columnName ?? 'created_at';
      const ids = (await clock.olderThan(strapi.db.connection(table()).select('id'), createdAt, olderThanMs)).map((row: { id: number }) => row.id);
      if (ids.length === 0) return 0;
      const stale = await strapi.db.query(PENDING_UPLOAD_UID).findMany({ where: { id: { $in: ids } } });
      let cleaned = 0;
      for (const entry of stale) {
        const recorded = await isRecorded(entry.name);
        if (!recorded) {
          if (!(await getService(strapi, 'media-store').remove(entry.files as JournalledFile[]))) continue;
          cleaned++;
        }
        await this.close(entry.id);
      }
      return cleaned;
    },
  };
};
