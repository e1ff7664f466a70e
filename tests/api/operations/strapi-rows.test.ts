/**
 * The upload's Media Library rows are written straight (plugins/image-api/server/src/database/sql-rows.ts,
 * storage/upload-records.ts), not through Strapi's upload service: this test holds them to what that
 * service writes. The same image goes in once through the API and once through
 * `strapi.plugin('upload').service('upload').upload()` into the same folder, by the same admin user;
 * the rows both left (the file, its folder link, its media-field row), read with a connection of the
 * test's own, must have the same columns and the same shape of values, and Strapi's document service
 * and the Media Library must find both files alike. A Strapi upgrade that changes its tables, or how
 * it fills them, fails here (on each database: `TEST_DB=postgres`, `TEST_DB=mysql`).
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import type { Knex } from 'knex';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { inspect } from '../../helpers/db-inspector';
import { jpeg } from '../../helpers/fixtures';

const FILE_UID = 'plugin::upload.file';
const IMAGE_UID = 'plugin::image-api.image';

const app = useApp();

type Row = Record<string, unknown>;
interface JoinTable {
  name: string;
  joinColumn: { name: string };
  inverseJoinColumn: { name: string };
  morphColumn?: { idColumn: { name: string }; typeColumn: { name: string } };
}

let db: Knex;
let auth: { Authorization: string };
let adminId: number;
/** The two files' ids: written by the plugin, and by Strapi's upload service. */
let ours: number;
let theirs: number;
let folderId: number;
let imageId: number;
/** The plugin's media-field row, read before Strapi's upload takes the field over (a single media field keeps one file). */
let ourMorph: Row[];
let ourMorphClasses: Record<string, string> | null;

const fileTable = () => (app.strapi.db.metadata.get(FILE_UID) as unknown as { tableName: string }).tableName;
const joinTable = (attribute: string) =>
  (app.strapi.db.metadata.get(FILE_UID) as unknown as { attributes: Record<string, { joinTable: JoinTable }> }).attributes[attribute].joinTable;

beforeAll(async () => {
  db = inspect(app.db);
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
  adminId = (await app.strapi.db.query('admin::user').findOne({ where: { email: 'admin@img.test' } })).id;
  // A key an admin owns: its uploads are recorded as that admin's (created_by, updated_by).
  const { key } = await app.strapi.plugin('image-api').service('api-keys').create({ name: 'rows key', ownerEmail: 'admin@img.test' });
  const bytes = await jpeg(800, 600);

  const res = await app.upload(key, bytes, { filename: 'same.jpg' });
  expect(res.status).toBe(200);
  const file = await app.strapi.db.query(FILE_UID).findOne({ where: { hash: res.body.image.name }, populate: { folder: true } });
  ours = file.id;
  folderId = file.folder.id;
  imageId = (await app.strapi.db.query(IMAGE_UID).findOne({ where: { name: res.body.image.name } })).id;
  ourMorph = await rowsOf(joinTable('related').name, joinTable('related').joinColumn.name, ours);
  ourMorphClasses = ourMorph.length > 0 ? await storageClasses(joinTable('related').name, ourMorph[0]) : null;

  // The same bytes through Strapi's own upload, in the same folder, attached to an image record's
  // media field as the plugin attaches its own (a morph row; Strapi's replaces the plugin's there).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strapi-rows-'));
  try {
    const filepath = path.join(dir, 'same.jpg');
    fs.writeFileSync(filepath, bytes);
    const [uploaded] = await app.strapi
      .plugin('upload')
      .service('upload')
      .upload(
        {
          data: { fileInfo: { name: 'same.jpg', folder: folderId }, ref: IMAGE_UID, refId: imageId, field: 'file' },
          files: { filepath, originalFilename: 'same.jpg', mimetype: 'image/jpeg', size: bytes.length },
        },
        { user: { id: adminId } }
      );
    theirs = uploaded.id;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

afterAll(async () => {
  await db?.destroy();
});

/** Rows of `table` where `column` is `id`, in id order. */
const rowsOf = (table: string, column: string, id: number): Promise<Row[]> => db(table).where(column, id).orderBy('id');

/** SQLite's storage class of each column of a row (integer, real, text, null): the JS values alone would not tell 1 from 1.0. */
async function storageClasses(table: string, row: Row): Promise<Record<string, string> | null> {
  if (app.db.client !== 'sqlite') return null;
  const columns = Object.keys(row);
  const [classes] = await db.raw(`select ${columns.map(() => 'typeof(??) as ??').join(', ')} from ?? where id = ?`, [
    ...columns.flatMap((column) => [column, column]),
    table,
    row.id,
  ]);
  return classes;
}

const ISO_TIME = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * What a value looks like, without what it is: null, a Date, a number, a JSON document (by its
 * keys' shapes), a time as text, or text. Two rows of one shape have the same columns, each null in
 * both or in neither, of one type and one format.
 */
function shape(value: unknown): unknown {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Date) return 'Date';
  if (Buffer.isBuffer(value)) return 'Buffer';
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shape(v)]).sort());
  if (typeof value === 'string') {
    if (/^[[{]/.test(value)) {
      try {
        return { json: shape(JSON.parse(value)) };
      } catch {
        // Text that only starts like JSON.
      }
    }
    if (ISO_TIME.test(value)) return 'time text';
    if (/^-?\d+(\.\d+)?$/.test(value)) return 'numeric text';
  }
  return typeof value;
}

/** A `formats` column as an object, on a database that stores JSON as text or as JSON. */
const formatsOf = (row: Row) => (typeof row.formats === 'string' ? JSON.parse(row.formats) : row.formats) as Record<string, Row>;

describe('the file row', () => {
  let mine: Row;
  let strapis: Row;
  beforeAll(async () => {
    [mine] = await rowsOf(fileTable(), 'id', ours);
    [strapis] = await rowsOf(fileTable(), 'id', theirs);
  });

  test('has the columns Strapi fills, each null where Strapi leaves it null and of the type Strapi gives it', async () => {
    const { formats: ourFormats, ...ourRest } = mine;
    const { formats: theirFormats, ...theirRest } = strapis;
    expect(Object.keys(mine).sort()).toEqual(Object.keys(strapis).sort());
    expect(Object.fromEntries(Object.entries(ourRest).map(([column, value]) => [column, shape(value)]))).toEqual(
      Object.fromEntries(Object.entries(theirRest).map(([column, value]) => [column, shape(value)]))
    );
    // The formats: the plugin's are its variants (thumbnail and medium), Strapi's its breakpoints;
    // each entry of the same shape as Strapi's thumbnail, stored the same way (JSON text or JSON).
    expect(typeof ourFormats).toBe(typeof theirFormats);
    const theirThumbnail = shape(formatsOf(strapis).thumbnail);
    expect(Object.keys(formatsOf(mine)).sort()).toEqual(['medium', 'thumbnail']);
    for (const entry of Object.values(formatsOf(mine))) expect(shape(entry)).toEqual(theirThumbnail);
    expect(await storageClasses(fileTable(), mine)).toEqual(await storageClasses(fileTable(), strapis));
  });

  test('has the values that are not the file\'s own as Strapi has them: provider, folder path, locale, creator and editor', () => {
    for (const column of ['provider', 'folder_path', 'locale', 'created_by_id', 'updated_by_id', 'provider_metadata', 'focal_point', 'preview_url']) {
      expect([column, mine[column]]).toEqual([column, strapis[column]]);
    }
    expect(Number(mine.created_by_id)).toBe(adminId);
    expect(mine.provider).toBe('local');
  });

  test('has a document id of the length and alphabet of Strapi\'s, its own', () => {
    // cuid2's shape: a letter, then letters and digits.
    const alphabet = /^[a-z][a-z0-9]+$/;
    expect(String(mine.document_id)).toMatch(alphabet);
    expect(String(strapis.document_id)).toMatch(alphabet);
    expect(String(mine.document_id)).toHaveLength(String(strapis.document_id).length);
    expect(mine.document_id).not.toBe(strapis.document_id);
  });

  test('is published, and stamped, as Strapi stamps its own: created and updated at one time, published then', () => {
    for (const row of [mine, strapis]) {
      const [created, updated, published] = ['created_at', 'updated_at', 'published_at'].map((column) => new Date(row[column] as string).getTime());
      expect(Number.isNaN(created)).toBe(false);
      expect(updated).toBe(created);
      // Strapi takes its publication time a moment apart from the others.
      expect(Math.abs(published - created)).toBeLessThan(1000);
    }
  });

  test('names its files as Strapi names them: a URL under /uploads/ of the hash and extension', () => {
    for (const row of [mine, strapis]) {
      expect(row.url).toBe(`/uploads/${row.hash}${row.ext}`);
      for (const entry of Object.values(formatsOf(row))) expect(entry.url).toBe(`/uploads/${entry.hash}${entry.ext}`);
    }
  });
});

test('the folder link: one row each, of the same columns and shape', async () => {
  const link = joinTable('folder');
  const [mine, ...moreOfMine] = await rowsOf(link.name, link.joinColumn.name, ours);
  const [strapis, ...moreOfStrapis] = await rowsOf(link.name, link.joinColumn.name, theirs);
  expect([moreOfMine, moreOfStrapis]).toEqual([[], []]);
  expect(Object.keys(mine).sort()).toEqual(Object.keys(strapis).sort());
  expect(Object.fromEntries(Object.entries(mine).map(([c, v]) => [c, shape(v)]))).toEqual(Object.fromEntries(Object.entries(strapis).map(([c, v]) => [c, shape(v)])));
  expect(Number(mine[link.inverseJoinColumn.name])).toBe(folderId);
  expect(Number(strapis[link.inverseJoinColumn.name])).toBe(folderId);
  expect(await storageClasses(link.name, mine)).toEqual(await storageClasses(link.name, strapis));
});

test('the media-field row: one each, to the image record, of the same columns and values but the file', async () => {
  const morph = joinTable('related');
  const [mine, ...moreOfMine] = ourMorph;
  const [strapis, ...moreOfStrapis] = await rowsOf(morph.name, morph.joinColumn.name, theirs);
  expect([moreOfMine, moreOfStrapis]).toEqual([[], []]);
  const { id: _ourId, [morph.joinColumn.name]: ourFile, ...ourRest } = mine;
  const { id: _theirId, [morph.joinColumn.name]: theirFile, ...theirRest } = strapis;
  expect([Number(ourFile), Number(theirFile)]).toEqual([ours, theirs]);
  expect(ourRest).toEqual(theirRest);
  expect(ourRest).toMatchObject({ [morph.morphColumn!.typeColumn.name]: IMAGE_UID, field: 'file' });
  expect(Number(ourRest[morph.morphColumn!.idColumn.name])).toBe(imageId);
  expect(ourMorphClasses).toEqual(await storageClasses(morph.name, strapis));
});

test("Strapi's document service finds the plugin's file as it finds its own", async () => {
  const documents = app.strapi.documents(FILE_UID as never);
  const [mine] = await db(fileTable()).where('id', ours).select('document_id');
  const [strapis] = await db(fileTable()).where('id', theirs).select('document_id');
  const inFolder = (await documents.findMany({ filters: { folder: { id: folderId } } } as never)) as Array<{ id: number }>;
  expect(inFolder.map((file) => file.id).sort((a, b) => a - b)).toEqual([ours, theirs]);
  const found = await Promise.all([mine, strapis].map((row) => documents.findOne({ documentId: row.document_id } as never) as Promise<Row | null>));
  expect(found.map((file) => file?.id)).toEqual([ours, theirs]);
  expect(Object.keys(found[0]!).sort()).toEqual(Object.keys(found[1]!).sort());
});

test("the Media Library's admin listing of the folder shows both files, described alike", async () => {
  const res = await app.http
    .get('/upload/files')
    .query({ 'filters[$and][0][folder][id][$eq]': folderId, sort: 'id:asc', pageSize: 50 })
    .set(auth);
  expect(res.status).toBe(200);
  const listed = res.body.results as Row[];
  expect(listed.map((file) => file.id)).toEqual([ours, theirs]);
  expect(Object.fromEntries(Object.entries(listed[0]).map(([key, value]) => [key, key === 'formats' ? 'formats' : shape(value)]))).toEqual(
    Object.fromEntries(Object.entries(listed[1]).map(([key, value]) => [key, key === 'formats' ? 'formats' : shape(value)]))
  );
});
