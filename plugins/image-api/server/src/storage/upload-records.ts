/**
 * The database rows of an accepted upload, in the caller's transaction: the `plugin::upload.file`
 * entry with its folder link, and the image record with its links (key, owners, file). Written
 * straight, one statement each (see database/sql-rows.ts), and held to the rows Strapi's upload
 * service writes for the same file by tests/api/operations/strapi-rows.test.ts.
 */
import type { Core } from '@strapi/strapi';
import { FILE_UID, IMAGE_UID } from '../config/constants';
import { createRowWriter, type Data, type Knex } from '../database/sql-rows';

export interface FileRow {
  /** Scalar attributes of the file entry, by attribute name. */
  data: Data;
  folderId: number;
  /** The admin user recorded as creator and last editor. */
  userId: number | null;
}

export interface ImageRow {
  data: Data;
  fileId: number;
  /** The folder it was uploaded to. */
  albumId: number;
  apiKeyId: number | null;
  adminOwnerId: number | null;
  siteUserOwnerId: number | null;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const { model, toRow, insert, link, withLifecycles } = createRowWriter(strapi);

  return {
    /** The Media Library file entry and its folder link; returns the entry id. */
    async createFile(trx: Knex, { data, folderId, userId }: FileRow, now: Date): Promise<number> {
      const created = await withLifecycles(FILE_UID, { ...data, createdBy: userId, updatedBy: userId }, now, async (values) => {
        const id = await insert(trx, model(FILE_UID).tableName, toRow(FILE_UID, values));
        await link(trx, FILE_UID, 'folder', id, folderId);
        return { id, ...values };
      });
      return created.id as number;
    },

    /** The image record and its links; returns the record id. */
    async createImage(trx: Knex, { data, fileId, albumId, apiKeyId, adminOwnerId, siteUserOwnerId }: ImageRow, now: Date): Promise<number> {
      const created = await withLifecycles(IMAGE_UID, data, now, async (values) => {
        const id = await insert(trx, model(IMAGE_UID).tableName, toRow(IMAGE_UID, values));
        await link(trx, IMAGE_UID, 'album', id, albumId);
        if (apiKeyId !== null) await link(trx, IMAGE_UID, 'api_key', id, apiKeyId);
        if (adminOwnerId !== null) await link(trx, IMAGE_UID, 'owner', id, adminOwnerId);
        if (siteUserOwnerId !== null) await link(trx, IMAGE_UID, 'owner_user', id, siteUserOwnerId);
        // The media field: a row in the file's morph table, as the entity manager writes it.
        const morph = model(FILE_UID).attributes.related.joinTable!;
        await insert(trx, morph.name, {
          [morph.joinColumn.name]: fileId,
          [morph.morphColumn!.idColumn.name]: id,
          [morph.morphColumn!.typeColumn.name]: IMAGE_UID,
          field: 'file',
          order: 1,
        });
        return { id, ...values };
      });
      return created.id as number;
    },
  };
};
