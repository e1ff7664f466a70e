/** Image records: the viewer's lookup, the atomic view counter, and cleanup when a file goes. */
import type { Core } from '@strapi/strapi';
import { IMAGE_UID } from '../../constants';


export interface ViewerImage {
  idEncoded: string;
  title: string | null;
  description: string | null;
  views: number;
  originalFilename: string | null;
  file: { url: string; width: number; height: number; mime: string; ext: string } | null;
  /** Bytes of the original (the file entry keeps kilobytes). */
  bytes: number;
  /** The `.md` variant, the image link previews show. */
  medium: { url: string; width: number; height: number } | null;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const table = () => strapi.db.metadata.get(IMAGE_UID).tableName;
  const column = (attribute: string) =>
    (strapi.db.metadata.get(IMAGE_UID).attributes[attribute] as { columnName?: string }).columnName ?? attribute;

  return {
    /** Counts one view, in one UPDATE so concurrent views are never lost; false for an unknown id. */
    async countView(idEncoded: string): Promise<boolean> {
      const updated = await strapi.db
        .connection(table())
        .where(column('id_encoded'), idEncoded)
        .increment(column('views'), 1);
      return Number(updated) > 0;
    },

    async findForViewer(idEncoded: string): Promise<ViewerImage | null> {
      const record = await strapi.db.query(IMAGE_UID).findOne({
        where: { id_encoded: idEncoded },
        populate: { file: true },
      });
      if (!record) return null;
      const file = record.file ?? null;
      return {
        idEncoded: record.id_encoded,
        title: record.title ?? null,
        description: record.description ?? null,
        views: Number(record.views),
        originalFilename: record.original_filename ?? null,
        file,
        bytes: file ? Math.round(Number(file.size) * 1000) : 0,
        medium: file?.formats?.medium ?? null,
      };
    },

    /** Deletes the records of a Media Library file that was deleted (matched by its hash). */
    async removeForFile(file: { hash?: string }): Promise<void> {
      if (file?.hash) await strapi.db.query(IMAGE_UID).deleteMany({ where: { name: file.hash } });
    },
  };
};
