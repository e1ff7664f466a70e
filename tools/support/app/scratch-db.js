'use strict';
/**
 * A fresh database for one test file or one benchmark: a temporary SQLite file, or a scratch
 * database created on the machine's PostgreSQL or MariaDB (127.0.0.1, the CI's services) and
 * dropped afterwards.
 *
 * Or a copy of a booted one (`{ from: template }`): a database the app has booted on once
 * (booted-template.js), copied for each test file, so a boot finds its schema and its first boot's
 * rows in place (on a fresh database Strapi creates and alters every table: about 1.5 s of a boot on
 * SQLite, 4 s on PostgreSQL and MariaDB). SQLite copies the file, PostgreSQL creates the database
 * from the template, MariaDB (which has no templates) replays the template's tables and copies their rows.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** @typedef {'sqlite' | 'postgres' | 'mysql'} TestDb */
/** @typedef {import('./scratch-db').Template} Template */

/** The database the suite runs on (`TEST_DB`, SQLite unless set). @returns {TestDb} */
const testDb = () => process.env.TEST_DB || 'sqlite';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', password: '' };
const MY = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };

/** Runs statements on a server-level connection; returns the last one's rows. */
async function adminQuery(client, sql) {
  if (client === 'postgres') {
    const { Client } = require('pg');
    const connection = new Client({ ...PG, database: 'postgres' });
    await connection.connect();
    try {
      return (await connection.query(sql)).rows;
    } finally {
      await connection.end();
    }
  }
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ ...MY, multipleStatements: true });
  try {
    const [rows] = await connection.query(sql);
    return rows;
  } finally {
    await connection.end();
  }
}

/** MariaDB: the template's tables as statements that make them in another database, rows and all. */
async function mysqlCopyStatements(template) {
  const tables = (await adminQuery('mysql', `SHOW FULL TABLES FROM \`${template}\` WHERE Table_type = 'BASE TABLE'`)).map((row) => Object.values(row)[0]);
  const statements = ['SET FOREIGN_KEY_CHECKS = 0'];
  for (const table of tables) {
    const [shown] = await adminQuery('mysql', `SHOW CREATE TABLE \`${template}\`.\`${table}\``);
    // Foreign keys name their tables unqualified: in the copy, the copy's.
    statements.push(shown['Create Table'], `INSERT INTO \`${table}\` SELECT * FROM \`${template}\`.\`${table}\``);
  }
  statements.push('SET FOREIGN_KEY_CHECKS = 1');
  return statements;
}

/**
 * What a copy is made from: a booted scratch database (`createScratchDb`'s `name`), as
 * `createScratchDb({ from })` takes it. Taken once, by the one that made it (booted-template.js).
 * @returns {Promise<Template>}
 */
async function templateOf(db) {
  if (db.client === 'sqlite') return { client: 'sqlite', file: db.name };
  if (db.client === 'postgres') return { client: 'postgres', name: db.name };
  return { client: 'mysql', name: db.name, statements: await mysqlCopyStatements(db.name) };
}

/**
 * @param {TestDb} [client]
 * @param {{ from?: Template | null }} [options] `from`: a copy of that booted database (of the same client)
 * @returns {Promise<import('./scratch-db').ScratchDb>}
 */
async function createScratchDb(client = testDb(), { from = null } = {}) {
  if (from && from.client !== client) throw new Error(`a ${client} database cannot be copied from a ${from.client} one`);
  const name = `imgapi_test_${crypto.randomBytes(6).toString('hex')}`;
  if (client === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-db-'));
    const filename = path.join(dir, 'data.db');
    // The template was closed cleanly: its write-ahead log is in the file.
    if (from) fs.copyFileSync(from.file, filename);
    return {
      client,
      name: filename,
      env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: filename },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const server = client === 'postgres' ? PG : MY;
  if (client === 'postgres') {
    await adminQuery(client, `CREATE DATABASE ${name}${from ? ` TEMPLATE ${from.name}` : ''}`);
  } else {
    await adminQuery(client, `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (from) await adminQuery(client, [`USE ${name}`, ...from.statements].join(';\n'));
  }
  return {
    client,
    name,
    env: {
      DATABASE_CLIENT: client,
      DATABASE_HOST: server.host,
      DATABASE_PORT: String(server.port),
      DATABASE_NAME: name,
      DATABASE_USERNAME: server.user,
      DATABASE_PASSWORD: server.password,
    },
    drop: async () => {
      await adminQuery(client, client === 'postgres' ? `DROP DATABASE IF EXISTS ${name} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${name}`);
    },
  };
}

module.exports = { createScratchDb, templateOf, testDb };
