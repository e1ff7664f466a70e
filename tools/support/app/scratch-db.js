'use strict';
/**
 * A fresh database for one test file or one benchmark: a temporary SQLite file, or a scratch
 * database created on the machine's PostgreSQL or MariaDB (127.0.0.1, the CI's services) and
 * dropped afterwards.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** @typedef {'sqlite' | 'postgres' | 'mysql'} TestDb */

/** The database the suite runs on (`TEST_DB`, SQLite unless set). @returns {TestDb} */
const testDb = () => process.env.TEST_DB || 'sqlite';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', password: '' };
const MY = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };

/** Runs one statement on a server-level connection. */
async function adminQuery(client, sql) {
  if (client === 'postgres') {
    const { Client } = require('pg');
    const connection = new Client({ ...PG, database: 'postgres' });
    await connection.connect();
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
    return;
  }
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ ...MY });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/**
 * @param {TestDb} [client]
 * @returns {Promise<{ client: TestDb, env: Record<string, string>, drop(): Promise<void> }>} `env`: the app's variables for it
 */
async function createScratchDb(client = testDb()) {
  const name = `imgapi_test_${crypto.randomBytes(6).toString('hex')}`;
  if (client === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-db-'));
    return {
      client,
      env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: path.join(dir, 'data.db') },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const server = client === 'postgres' ? PG : MY;
  await adminQuery(client, client === 'postgres' ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  return {
    client,
    env: {
      DATABASE_CLIENT: client,
      DATABASE_HOST: server.host,
      DATABASE_PORT: String(server.port),
      DATABASE_NAME: name,
      DATABASE_USERNAME: server.user,
      DATABASE_PASSWORD: server.password,
    },
    drop: () => adminQuery(client, client === 'postgres' ? `DROP DATABASE IF EXISTS ${name} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${name}`),
  };
}

module.exports = { createScratchDb, testDb };
