/** Direct reads of a scratch database (knex, as Strapi uses), for tests where the app is another process. */
import knex, { type Knex } from 'knex';
import type { ScratchDb } from '../../tools/support/app/scratch-db';

export function inspect(db: ScratchDb): Knex {
  const e = db.env;
  if (db.client === 'sqlite') return knex({ client: 'better-sqlite3', connection: { filename: e.DATABASE_FILENAME }, useNullAsDefault: true });
  return knex({
    client: db.client === 'postgres' ? 'pg' : 'mysql2',
    connection: { host: e.DATABASE_HOST, port: Number(e.DATABASE_PORT), user: e.DATABASE_USERNAME, password: e.DATABASE_PASSWORD, database: e.DATABASE_NAME },
  });
}
