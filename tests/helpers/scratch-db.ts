/**
 * A fresh database per test file: a temporary SQLite file, or a scratch database created on the
 * PostgreSQL / MariaDB server of TEST_DB and dropped afterwards.
 */
import crypto from 'crypto';
import fs from 'fs';
import os from 'os';
import path from 'path';

export type TestDb = 'sqlite' | 'postgres' | 'mysql';

export interface ScratchDb {
  client: TestDb;
  /** Environment for config/database.ts. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export const testDb = (): TestDb => (process.env.TEST_DB as TestDb) || 'sqlite';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', password: '' };
const MY = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };

export async function createScratchDb(client: TestDb = testDb()): Promise<ScratchDb> {
  const name = `imgapi_test_${crypto.randomBytes(6).toString('hex')}`;
  if (client === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-db-'));
    return {
      client,
      env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: path.join(dir, 'data.db') },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (client === 'postgres') {
    const { Client } = await import('pg');
    const admin = async (sql: string) => {
      const c = new Client({ ...PG, database: 'postgres' });
      await c.connect();
      try {
        await c.query(sql);
      } finally {
        await c.end();
      }
    };
    await admin(`CREATE DATABASE ${name}`);
    return {
      client,
      env: {
        DATABASE_CLIENT: 'postgres',
        DATABASE_HOST: PG.host,
        DATABASE_PORT: String(PG.port),
        DATABASE_NAME: name,
        DATABASE_USERNAME: PG.user,
        DATABASE_PASSWORD: PG.password,
      },
      drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const mysql = await import('mysql2/promise');
  const admin = async (sql: string) => {
    const c = await mysql.createConnection({ ...MY });
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  return {
    client,
    env: {
      DATABASE_CLIENT: 'mysql',
      DATABASE_HOST: MY.host,
      DATABASE_PORT: String(MY.port),
      DATABASE_NAME: name,
      DATABASE_USERNAME: MY.user,
      DATABASE_PASSWORD: MY.password,
    },
    drop: () => admin(`DROP DATABASE IF EXISTS ${name}`),
  };
}
