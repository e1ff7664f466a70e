/**
 * What an image leaves in the database and on disk, to check that a deletion took all of it and that
 * a refused one took nothing.
 */
import fs from 'fs';
import type { TestApp } from './app';

export interface Traces {
  /** Files in the uploads folder named after the image. */
  files: string[];
  imageRows: number;
  fileRows: number;
  /** Rows of the image's relations (key, owners, album) and of its file's (folder, media field). */
  linkRows: number;
  /** Link rows anywhere that point at an image or a file that no longer exists. */
  orphanLinks: number;
  journalRows: number;
}

/** Link rows whose image or file is gone (a deletion that left them behind). */
async function orphanLinks(app: TestApp): Promise<number> {
  const knex = app.strapi.db.connection;
  const count = async (query: any) => Number((await query.count({ n: '*' }))[0].n);
  const missing = (table: string, column: string, target: string) =>
    knex(table).whereNotExists(knex(target).select('id').whereRaw('??.id = ??.??', [target, table, column]));
  let orphans = 0;
  for (const table of ['image_api_images_api_key_lnk', 'image_api_images_owner_lnk', 'image_api_images_album_lnk']) {
    orphans += await count(missing(table, 'image_id', 'image_api_images'));
  }
  orphans += await count(missing('files_related_mph', 'related_id', 'image_api_images').where('related_type', 'plugin::image-api.image'));
  orphans += await count(missing('files_related_mph', 'file_id', 'files'));
  orphans += await count(missing('files_folder_lnk', 'file_id', 'files'));
  return orphans;
}

/** Everything left of the image stored as `name` (its `image.name`). */
export async function tracesOf(app: TestApp, name: string): Promise<Traces> {
  const knex = app.strapi.db.connection;
  const count = async (query: any) => Number((await query.count({ n: '*' }))[0].n);
  const image = await knex('image_api_images').where('name', name).first('id');
  const file = await knex('files').where('hash', name).first('id');
  let linkRows = 0;
  if (image) {
    for (const table of ['image_api_images_api_key_lnk', 'image_api_images_owner_lnk', 'image_api_images_album_lnk']) {
      linkRows += await count(knex(table).where('image_id', image.id));
    }
    linkRows += await count(knex('files_related_mph').where({ related_id: image.id, related_type: 'plugin::image-api.image' }));
  }
  if (file) {
    linkRows += await count(knex('files_folder_lnk').where('file_id', file.id));
    linkRows += await count(knex('files_related_mph').where('file_id', file.id));
  }
  return {
    files: fs.readdirSync(app.uploadsDir).filter((f) => f.startsWith(`${name}.`)).sort(),
    imageRows: await count(knex('image_api_images').where('name', name)),
    fileRows: await count(knex('files').where('hash', name)),
    linkRows,
    orphanLinks: await orphanLinks(app),
    journalRows: await count(knex('image_api_pending_uploads').where('name', name)),
  };
}

export const NOTHING: Traces = { files: [], imageRows: 0, fileRows: 0, linkRows: 0, orphanLinks: 0, journalRows: 0 };

/** The traces of a whole, stored upload (original and both variants, with `links` link rows). */
export const whole = (name: string, extension: string, links: number): Traces => ({
  files: [`${name}.${extension}`, `${name}.md.${extension}`, `${name}.th.${extension}`].sort(),
  imageRows: 1,
  fileRows: 1,
  linkRows: links,
  orphanLinks: 0,
  journalRows: 0,
});
