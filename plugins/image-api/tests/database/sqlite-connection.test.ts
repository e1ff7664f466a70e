/**
 * The SQLite connection settings (server/src/database/sqlite-connection.ts, the package's
 * `strapi-plugin-image-api/sqlite`) on real better-sqlite3 databases: statements compiled once and
 * handed out again, the least recently used dropped past the bound, a kept statement still right
 * after the schema changes under it (Strapi alters tables at boot); and a pool given sqlitePool()
 * makes connections in WAL mode without an fsync per commit, as knex makes them for Strapi.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import knex from 'knex';
import type { Core } from '@strapi/strapi';
import { keepCompiledStatements, sqlitePool, tuneSqliteConnection } from '../../server/src/database/sqlite-connection';

// better-sqlite3 ships no types; what these tests use of it.
interface Statement {
  run(...values: unknown[]): unknown;
  get(...values: unknown[]): unknown;
  all(...values: unknown[]): unknown[];
}
interface Connection {
  prepare(sql: string): Statement;
  pragma(sql: string, options?: { simple: boolean }): unknown;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (file: string) => Connection;

function open(size?: number) {
  const db = new Database(':memory:');
  const compiled: string[] = [];
  const compile = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    compiled.push(sql);
    return compile(sql);
  };
  keepCompiledStatements(db, size);
  return { db, compiled, prepare: (sql: string) => db.prepare(sql) };
}

test('the same text is compiled once and runs again with other values', () => {
  const { db, compiled, prepare } = open();
  prepare('create table t (id integer primary key, name text)').run();
  for (const name of ['a', 'b', 'c']) prepare('insert into t (name) values (?)').run(name);
  expect(prepare('select name from t where id > ?').all(1)).toEqual([{ name: 'b' }, { name: 'c' }]);
  expect(prepare('select name from t where id > ?').all(2)).toEqual([{ name: 'c' }]);
  expect(compiled).toEqual(['create table t (id integer primary key, name text)', 'insert into t (name) values (?)', 'select name from t where id > ?']);
  db.close();
});

test('past its bound the least recently used statement is dropped and compiled again when asked', () => {
  const { db, compiled, prepare } = open(2);
  prepare('select 1').get();
  prepare('select 2').get();
  prepare('select 1').get(); // now the most recent: 2 is the one to go
  prepare('select 3').get();
  prepare('select 1').get();
  expect(compiled).toEqual(['select 1', 'select 2', 'select 3']);
  prepare('select 2').get();
  expect(compiled).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
  db.close();
});

test('a kept statement sees a column added after it was compiled', () => {
  const { db, prepare } = open();
  prepare('create table t (id integer primary key)').run();
  prepare('insert into t (id) values (?)').run(1);
  expect(prepare('select * from t').all()).toEqual([{ id: 1 }]);
  prepare("alter table t add column name text default 'x'").run();
  expect(prepare('select * from t').all()).toEqual([{ id: 1, name: 'x' }]);
  db.close();
});

describe('sqlitePool', () => {
  test("fits the `pool` of an app's SQLite connection as Strapi types it (create-strapi-app's config/database.ts is strict TypeScript)", () => {
    const connection: Core.Config.Database['connection'] = { client: 'sqlite', connection: { filename: ':memory:' }, useNullAsDefault: true, pool: sqlitePool() };
    expect(typeof connection.pool?.afterCreate).toBe('function');
  });

  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-sqlite-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("knex's connections come tuned: WAL kept in the file, no fsync per commit, statements compiled once", async () => {
    const filename = path.join(dir, 'app.db');
    const db = knex({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true, pool: sqlitePool() });
    try {
      const pragma = (name: string) => db.raw(`pragma ${name}`).then((rows: Array<Record<string, unknown>>) => Object.values(rows[0])[0]);
      expect(await pragma('journal_mode')).toBe('wal');
      // 1: NORMAL (2 is FULL, better-sqlite3's default).
      expect(await pragma('synchronous')).toBe(1);
      await db.schema.createTable('t', (table) => table.increments('id'));
      const conn = (await db.client.acquireConnection()) as Connection;
      const first = conn.prepare('select count(*) as n from t');
      expect(conn.prepare('select count(*) as n from t')).toBe(first);
      await db.client.releaseConnection(conn);
      await db('t').insert({});
      expect(fs.existsSync(`${filename}-wal`)).toBe(true);
    } finally {
      await db.destroy();
    }
    // The journal mode stays with the file: a connection without these settings finds it.
    const plain = new Database(filename);
    expect(plain.pragma('journal_mode', { simple: true })).toBe('wal');
    plain.close();
  });

  test('a connection that cannot be tuned is closed and handed back with the error, so the pool does not use it', () => {
    const close = jest.fn();
    const refusing = { prepare: () => null, pragma: () => { throw new Error('SQLITE_READONLY'); }, close };
    const done = jest.fn();
    sqlitePool().afterCreate(refusing, done);
    expect(done).toHaveBeenCalledTimes(1);
    expect(done.mock.calls[0][0]).toEqual(new Error('SQLITE_READONLY'));
    expect(close).toHaveBeenCalledTimes(1);
    expect(() => tuneSqliteConnection(refusing)).toThrow('SQLITE_READONLY');
  });
});
