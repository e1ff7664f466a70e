/**
 * Deleting an API image's entry in the Content Manager deletes the whole image, as every other
 * deletion does (docs/api.md, "Deleting an image"): the original and its variants through the upload
 * provider, the Media Library file and the record (storage/image-removal.ts). Left to the
 * document service, only the record went: the viewer answered 404, but the files stayed public.
 *
 * The Content Manager's bulk delete runs every deletion in one transaction of its own: the removal
 * then waits for that transaction to commit (it writes its journal on a connection of its own, and
 * SQLite has only one), and an image it did not commit stays whole.
 */
import type { Core } from '@strapi/strapi';
import { IMAGE_UID } from '../config/constants';
import { getService } from '../get-service';

export function deleteImagesWhole(strapi: Core.Strapi): void {
  strapi.documents.use(async (context, next) => {
    if (context.uid !== IMAGE_UID || context.action !== 'delete') return next();
    const documentId = (context.params as { documentId?: string } | undefined)?.documentId;
    if (!documentId) return next();
    const images = await getService(strapi, 'images').findForRemovalByDocument(documentId);
    if (images.length === 0) return next();
    const remove = () => getService(strapi, 'image-removal').remove(images, 'content-manager');
    if (strapi.db.inTransaction()) {
      await strapi.db.transaction(({ onCommit }) =>
        onCommit(() => {
          remove().catch((error: Error) => strapi.log.error(`image-api: an image deleted in the Content Manager was not removed: ${error.message}`));
        })
      );
    } else {
      await remove();
    }
    return { documentId, entries: images.map(({ id }) => ({ id, documentId })) };
  });
}
