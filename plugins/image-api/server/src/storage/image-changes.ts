/**
 * One signal for "an image changed": every road by which an image is stored, deleted or edited says so
 * here once, and every cache that keeps something of an image listens here (docs/development.md,
 * "Rules of the house").
 *
 * Emitted by:
 * - storage/media-store.ts: an upload recorded (`stored`: a lookup of its name made before, by a
 *   client guessing ahead, is not reused);
 * - storage/image-removal.ts: deleted through the API, the delete link, the Image API page, the
 *   Content Manager or the expiry sweep (`deleted`);
 * - storage/image-records.ts: its file deleted in the Media Library (`deleted`);
 * - watchEditorChanges() below: its file edited in the Media Library (focal point, name, alternative
 *   text, caption), its record edited in the Content Manager (title, description, NSFW, expiry)
 *   (`edited`).
 *
 * Each cache subscribes where its service is made (delivery/image-sources.ts, delivery/hot-files.ts),
 * rather than on a list kept here: Strapi makes a service when it is first asked for, so a cache that
 * does not exist yet holds nothing to drop; the cache's own file says how it is kept fresh; and the
 * imports keep running downward (a list here would name services of rooms above this one). Caches
 * that need no subscription say why where they are made (delivery/transforms.ts,
 * delivery/source-frames.ts).
 *
 * Other instances: there is no channel between instances, and none is needed for correctness: their
 * lookups of an image live SOURCE_TTL_MS (delivery/image-sources.ts), so they see a change within
 * that; a deleted image's files are gone from the storage for every instance at once.
 */
import type { Core } from '@strapi/strapi';
import { FILE_UID, IMAGE_UID } from '../config/constants';
import { getService } from '../get-service';
import { createSignal, type Listener } from '../operations/in-process-signal';

export type ImageChangeKind = 'stored' | 'deleted' | 'edited';

export interface ImageChange {
  kind: ImageChangeKind;
  /** The images' stored names (their files' hash). */
  names: string[];
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const signal = createSignal<ImageChange>((error) =>
    strapi.log.warn(`image-api: a cache did not take an image change: ${(error as Error)?.message ?? error}`)
  );
  return {
    /** Says that these images changed; every listener has run when this returns. */
    changed(kind: ImageChangeKind, names: string[]): void {
      if (names.length > 0) signal.emit({ kind, names });
    },
    subscribe: (listener: Listener<ImageChange>) => signal.subscribe(listener),
  };
};

/**
 * What editors change in the admin panel, through Strapi's own routes (database lifecycles: every
 * write of the query engine, whoever makes it):
 * - deleting an API image's file in the Media Library deletes its image record (the provider files
 *   go with the file), which signals the deletion (storage/image-records.ts);
 * - editing its file there (focal point: the next transformation crops around the new one) or its
 *   record in the Content Manager (an expiry moved: the next request is answered by the new one).
 */
export function watchEditorChanges(strapi: Core.Strapi): void {
  const edited = (name: unknown) => {
    if (typeof name === 'string' && name) getService(strapi, 'image-changes').changed('edited', [name]);
  };
  strapi.db.lifecycles.subscribe({
    models: [FILE_UID],
    async afterDelete(event) {
      await getService(strapi, 'images').removeForFile(event.result ?? {});
    },
    // A file's hash is its image's name (storage/media-store.ts); a Media Library file of no image
    // names nothing any cache holds.
    async afterUpdate(event) {
      edited((event.result as { hash?: unknown } | undefined)?.hash);
    },
  });
  strapi.db.lifecycles.subscribe({
    models: [IMAGE_UID],
    async afterUpdate(event) {
      edited((event.result as { name?: unknown } | undefined)?.name);
    },
  });
}
