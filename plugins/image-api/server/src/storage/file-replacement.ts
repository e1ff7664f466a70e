/**
 * An API image's Media Library file is never replaced: its URLs never change and caches keep them a
 * month (docs/api.md, "Direct URLs"), while Strapi's Replace keeps the file's URL for the new bytes
 * and drops the formats it did not make (the image's `.th` and `.md`). So an Editor could put other
 * bytes under an image a key uploaded, served stale from every cache and described wrongly by its
 * record (`md5`, `size`, dimensions). The upload service's `replace` (the Media Library's Replace,
 * admin and content API alike) refuses such a file with a 400; everything else about it stays
 * editable (name, alternative text, caption, focal point, folder). Deleting it deletes the image.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { FILE_UID, IMAGE_UID } from '../config/constants';

const UPLOAD_SERVICE = 'plugin::upload.upload';

type Replace = (id: unknown, ...rest: unknown[]) => Promise<unknown>;

export function keepImageFilesWhole(strapi: Core.Strapi): void {
  const services = strapi.get('services');
  const current = services.get(UPLOAD_SERVICE) as { replace?: unknown } | undefined;
  if (typeof current?.replace !== 'function') {
    strapi.log.warn(`image-api: ${UPLOAD_SERVICE} has no replace(): API images' files are not guarded against the Media Library's Replace`);
    return;
  }
  services.extend(UPLOAD_SERVICE, (service: Record<string, unknown> & { replace: Replace }) => ({
    ...service,
    async replace(id: unknown, ...rest: unknown[]) {
      // The file's hash is its image's name (storage/media-store.ts): two lookups by unique keys.
      const file = await strapi.db.query(FILE_UID).findOne({ where: { id }, select: ['hash'] });
      const image = file?.hash ? await strapi.db.query(IMAGE_UID).findOne({ where: { name: file.hash }, select: ['id'] }) : null;
      if (image) {
        throw new errors.ApplicationError("An API image's file cannot be replaced: its URLs never change. Upload the new image instead, and delete this one.");
      }
      return service.replace(id, ...rest);
    },
  }));
}
