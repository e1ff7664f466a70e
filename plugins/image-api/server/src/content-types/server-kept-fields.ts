/**
 * What only the server writes. The Content Manager (and any client of the document service) may
 * send these fields; their values are dropped before the write, whatever the edit view shows. API
 * images are made by uploads only: a hand-made entry would be a record without a file. The plugin
 * itself writes through the query engine, which this does not touch.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { API_KEY_UID, IMAGE_UID } from '../constants';

/** By content type: the fields whose values the server keeps. */
export const SERVER_KEPT_FIELDS: Record<string, string[]> = {
  [API_KEY_UID]: ['upload_count', 'last_used_at', 'key_prefix', 'key_last4', 'key_hash', 'key_encrypted', 'images'],
  // Editors may change an image's title, description, NSFW flag and expiry; the rest is the upload's.
  [IMAGE_UID]: [
    'id_encoded', 'name', 'md5', 'views', 'original_filename', 'original_exifdata', 'file', 'api_key', 'owner', 'owner_user',
    'album', 'delete_hash', 'expiry_claim', 'expiry_claimed_at',
  ],
};

export function keepServerFields(strapi: Core.Strapi): void {
  strapi.documents.use(async (context, next) => {
    const kept = SERVER_KEPT_FIELDS[context.uid];
    if (!kept) return next();
    if (context.uid === IMAGE_UID && context.action === 'create') {
      throw new errors.ApplicationError('API images are made by uploads through the API (POST /api/1/upload), not by hand');
    }
    if (context.action === 'create' || context.action === 'update') {
      const data = (context.params as { data?: Record<string, unknown> } | undefined)?.data;
      if (data) for (const field of kept) delete data[field];
    }
    return next();
  });
}
