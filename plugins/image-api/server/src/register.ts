import type { Core } from '@strapi/strapi';
import { addHttpEntries } from './http-entries';
import { guardMediaLibraryImports } from './sources/media-library-import';
import { applyHeapGrowth } from './operations/heap-growth';
import { configureImageWork } from './images/image-work';
import { restrictDecoders } from './images/decoders/image-decoders';
import { getService, getConfig } from './get-service';
import { API_KEY_UID, IMAGE_UID, SITE_USER_UID } from './config/constants';
import { protectFields } from './admin/field-protection';
import { protectQueries } from './admin/query-protection';
import { deleteImagesWhole } from './storage/document-deletion';
import { watchEditorChanges } from './storage/image-changes';
import { keepImageFilesWhole } from './storage/file-replacement';
import { withholdCreateOnImages } from './admin/admin-permissions';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  // Held until the end of the plugin's bootstrap: instances booting at once set the schema up in turn.
  await getService(strapi, 'boot-lock').acquire();
  // Every route, middleware and listener the plugin adds, in the order a request meets them.
  addHttpEntries(strapi);
  // The Media Library's imports from URLs follow the URL sources' address policy (sources/media-library-import.ts).
  guardMediaLibraryImports(strapi);
  // An API image's file is not replaced through the Media Library (storage/file-replacement.ts).
  keepImageFilesWhole(strapi);
  // Process-wide settings, before anything uses sharp or allocates much.
  restrictDecoders(getConfig(strapi).blockUnusedDecoders);
  applyHeapGrowth(getConfig(strapi).heapGrowingPercent);
  configureImageWork(getConfig(strapi).imageConcurrency, getConfig(strapi).sharpThreads, getConfig(strapi).renderConcurrency);

  // Keys and images may belong to a users-permissions user too, when that plugin is installed.
  if (strapi.plugin('users-permissions')) {
    for (const uid of [API_KEY_UID, IMAGE_UID]) {
      strapi.get('content-types').extend(uid, (contentType: { attributes: Record<string, unknown> }) => {
        contentType.attributes.owner_user = {
          type: 'relation',
          relation: 'manyToOne',
          target: SITE_USER_UID,
          configurable: false,
        };
      });
    }
  }

  // API images are made by uploads, not by the Content Manager's "Create" (admin/admin-permissions.ts).
  withholdCreateOnImages(strapi);

  // Deletions and edits in the Media Library and the Content Manager, signalled as image changes.
  watchEditorChanges(strapi);

  // Fields only the server writes are dropped from what the Content Manager sends; secrets and the
  // sweep's bookkeeping never leave the server, nested or not, for any role.
  protectFields(strapi);
  protectQueries(strapi);

  // An image deleted in the Content Manager goes whole: files, Media Library entry and record.
  deleteImagesWhole(strapi);
};
