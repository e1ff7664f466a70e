/**
 * Every road by which an image is deleted (docs/api.md, "Deleting an image"), as a client or an
 * editor takes it, each asserting its own answer: the delete link, the API, the Image API page, the
 * Content Manager, the Media Library, and the expiry sweep (an expiry reached behind every cache's
 * back, then swept). For tests that check what each road leaves behind.
 */
import type { SuiteApp } from './app';

const IMAGE_UID = 'plugin::image-api.image';

export interface DeletableImage {
  id_encoded: string;
  name: string;
  delete_url: string;
}

export type DeletionRoad = [name: string, remove: (image: DeletableImage) => Promise<void>];

/** `auth`: an admin's Authorization header (a Super Admin's, as tests/helpers/admin.ts gives it). */
export function deletionRoads(app: SuiteApp, auth: () => { Authorization: string }): DeletionRoad[] {
  return [
    ['the delete link', async (image) => expect((await app.http.delete(app.pathOf(image.delete_url)).set('Accept', 'application/json')).status).toBe(200)],
    ['the API', async (image) => expect((await app.http.post('/api/1/delete').set('X-API-Key', app.key).field('id', image.id_encoded)).status).toBe(200)],
    ['the Image API page', async (image) => expect((await app.http.delete(`/image-api/images/${image.id_encoded}`).set(auth())).status).toBe(204)],
    [
      'the Content Manager',
      async (image) => {
        const record = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: image.id_encoded } });
        expect((await app.http.delete(`/content-manager/collection-types/${IMAGE_UID}/${record.documentId}`).set(auth())).status).toBe(200);
      },
    ],
    [
      'the Media Library',
      async (image) => {
        const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
        expect((await app.http.delete(`/upload/files/${file.id}`).set(auth())).status).toBe(200);
      },
    ],
    [
      'the expiry sweep',
      async (image) => {
        await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ expires_at: new Date(Date.now() - 1000) });
        expect(await app.strapi.plugin('image-api').service('expiry-sweep').run()).toBeGreaterThanOrEqual(1);
      },
    ],
  ];
}
