/**
 * config/sqlite/statement-cache.ts on a real better-sqlite3 database: statements compiled once and
 * handed out again, the least recently used dropped past the bound, and a kept statement still right
 * after the schema changes under it (Strapi alters tables at boot).
 */
import { keepCompiledStatements } from '../../config/sqlite/statement-cache';

// better-sqlite3 ships no types; what these tests use of it.
interface Statement {
  run(...values: unknown[]): unknown;
  get(...values: unknown[]): unknown;
  all(...values: unknown[]): unknown[];
}
interface Connection {
  prepare(sql: string): Statement;
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
