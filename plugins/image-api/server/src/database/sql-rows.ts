/**
 * Rows written straight through knex, one plain SQL statement each, as Strapi would write them:
 * table and column names from Strapi's metadata, values converted as Strapi converts them (JSON as
 * text, dates as Date), document ids shaped as Strapi's (newDocumentId), and the database lifecycles
 * run around a create, so subscribers hear of the rows.
 *
 * Why not `strapi.db.query(...).create`: for an upload's rows the entity manager runs 15 statements
 * (BEGIN and COMMIT included: it reads every row back, and wraps the journal in a transaction of its
 * own) and took about a third of each upload's JavaScript time, the thread every request shares.
 * Here: 10, and the JavaScript around them is a fraction. Measured again with only the file entry
 * through `strapi.db.query(...).create` (`npm run bench -- --only jpeg-1.7mp,png-800 --concurrency 2`):
 * main-thread CPU per upload 10.8 → 13.6 ms (JPEG) and 13.1 → 14.5 ms (PNG), and its folder link
 * then orders by a scan of the folder's links, which grows with the library. The entity manager
 * functions this mirrors are pinned (tests/config/strapi-pins.test.ts);
 * tests/api/operations/strapi-rows.test.ts compares the rows with those of Strapi's own upload.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import type { Knex as KnexInstance } from 'knex';
import { FILE_UID } from '../config/constants';

/** A knex transaction, or the connection itself (Strapi's own knex). */
export type Knex = KnexInstance | KnexInstance.Transaction;
export type Data = Record<string, unknown>;

interface Column {
  name: string;
}
interface JoinTable {
  name: string;
  joinColumn: Column;
  inverseJoinColumn: Column;
  orderColumnName?: string;
  inverseOrderColumnName?: string;
  morphColumn?: { idColumn: Column; typeColumn: Column };
}
interface Attribute {
  type: string;
  columnName?: string;
  default?: unknown;
  joinColumn?: Column;
  joinTable?: JoinTable;
}
interface Model {
  tableName: string;
  attributes: Record<string, Attribute>;
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const DOCUMENT_ID_LENGTH = 24;
/** Random bytes drawn 256 ids at a time (one draw each costs more than the id). */
const randomPool = Buffer.alloc(DOCUMENT_ID_LENGTH * 256);
let randomUsed = randomPool.length;

/**
 * A new document id, shaped as the ones Strapi's own default makes (cuid2: 24 characters, a letter
 * then letters and digits), from the system's random source. cuid2 hashes each one with SHA-3 in
 * JavaScript, 30 to 70 µs on the thread every request shares: a 150,000-line blocklist import spent
 * half its time there. About 123 random bits (a byte's slight lean towards the first few characters
 * costs none of the uniqueness an id needs).
 */
export function newDocumentId(): string {
  if (randomUsed + DOCUMENT_ID_LENGTH > randomPool.length) {
    crypto.randomFillSync(randomPool);
    randomUsed = 0;
  }
  const start = randomUsed;
  randomUsed += DOCUMENT_ID_LENGTH;
  let id = BASE36[10 + (randomPool[start] % 26)];
  for (let i = start + 1; i < randomUsed; i++) id += BASE36[randomPool[i] % 36];
  return id;
}

export function createRowWriter(strapi: Core.Strapi) {
  const model = (uid: string) => strapi.db.metadata.get(uid) as unknown as Model;

  /** Attribute names → column names, values as Strapi stores them, plus a new document id. */
  function toRow(uid: string, data: Data): Data {
    const { attributes } = model(uid);
    // A model with document ids (Strapi gives its documentId attribute a default that makes one).
    const row: Data = typeof attributes.documentId?.default === 'function' ? { document_id: newDocumentId() } : {};
    for (const [name, value] of Object.entries(data)) {
      const attribute = attributes[name];
      if (!attribute) throw new Error(`image-api: ${uid} has no attribute "${name}"`);
      const column = attribute.columnName ?? attribute.joinColumn?.name ?? name;
      row[column] = attribute.type === 'json' && value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
    }
    return row;
  }

  /**
   * INSERT as plain SQL (`??` identifiers, `?` values, quoted by knex for the dialect): measured on
   * SQLite, 0.05 ms of JavaScript where knex's query builder takes 0.16. Returns the new row's id.
   */
  async function insert(trx: Knex, table: string, row: Data): Promise<number> {
    const columns = Object.keys(row);
    const postgres = strapi.db.dialect.client === 'postgres';
    const result = await trx.raw(
      `insert into ?? (${columns.map(() => '??').join(', ')}) values (${columns.map(() => '?').join(', ')})${postgres ? ' returning "id"' : ''}`,
      [table, ...columns, ...columns.map((column) => row[column])]
    );
    // PostgreSQL: { rows: [{ id }] }; MySQL: [{ insertId }, fields]; SQLite: { lastInsertRowid }.
    if (result?.rows) return Number(result.rows[0].id);
    if (Array.isArray(result)) return Number(result[0].insertId);
    return Number(result.lastInsertRowid);
  }

  /**
   * A row in a relation's link table. Where the target keeps its links in order (a folder, its
   * files), the new one goes last. Strapi computes max + 1 over the target's links, a scan of all of
   * them, and every API upload shares one folder: that scan would grow with the library. The new
   * row's own id orders the same way (ids only grow) and costs nothing; ties with links an editor
   * added meanwhile only leave their relative order to the id.
   */
  async function link(trx: Knex, uid: string, attribute: string, rowId: number, targetId: number) {
    const table = model(uid).attributes[attribute]?.joinTable;
    if (!table) throw new Error(`image-api: ${uid}.${attribute} has no link table`);
    const values: Data = { [table.joinColumn.name]: rowId, [table.inverseJoinColumn.name]: targetId };
    if (table.orderColumnName) values[table.orderColumnName] = 1;
    if (table.inverseOrderColumnName) values[table.inverseOrderColumnName] = rowId;
    await insert(trx, table.name, values);
  }

  /** Runs the create lifecycles of `uid` around `create`, as the entity manager would; sets the timestamps. */
  async function withLifecycles(uid: string, data: Data, now: Date, create: (data: Data) => Promise<Data>) {
    const params = { data: { createdAt: now, updatedAt: now, ...data } };
    const states = await strapi.db.lifecycles.run('beforeCreate', uid, { params });
    const result = await create(params.data);
    await strapi.db.lifecycles.run('afterCreate', uid, { params, result }, states);
    return result;
  }

  /**
   * Deletes rows of `uid` by id, with the rows that link them (their relations' link tables, and the
   * media-field rows that point at them), in one statement per table, as the entity manager's delete
   * would row by row; its deleteMany lifecycles run around it. Returns the rows deleted.
   */
  async function remove(trx: Knex, uid: string, ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { tableName, attributes } = model(uid);
    const params = { where: { id: { $in: ids } } };
    const states = await strapi.db.lifecycles.run('beforeDeleteMany', uid, { params });
    for (const { joinTable } of Object.values(attributes)) {
      if (joinTable) await trx(joinTable.name).whereIn(joinTable.joinColumn.name, ids).del();
    }
    // Media fields are rows of the files' morph table, which holds every type's: only this type's.
    const media = model(FILE_UID).attributes.related.joinTable!;
    await trx(media.name).whereIn(media.morphColumn!.idColumn.name, ids).where(media.morphColumn!.typeColumn.name, uid).del();
    const count = await trx(tableName).whereIn('id', ids).del();
    await strapi.db.lifecycles.run('afterDeleteMany', uid, { params, result: { count } }, states);
    return count;
  }

  return { model, toRow, insert, link, withLifecycles, remove };
}
