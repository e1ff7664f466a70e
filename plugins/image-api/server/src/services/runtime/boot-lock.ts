/**
 * Several instances booting at once on an empty database race in Strapi's own schema setup
 * (`relation "strapi_migrations" already exists`, duplicate types) and crash. The plugin serializes
 * boots: it takes a database-wide lock when it registers (before Strapi creates or migrates the
 * schema) and gives it back at the end of its bootstrap, so the next instance finds the schema made.
 * PostgreSQL: an advisory lock; MySQL/MariaDB: GET_LOCK; SQLite (one box, one file): none. The lock
 * belongs to one pooled connection, so a process that dies while holding it releases it.
 */
import type { Core } from '@strapi/strapi';

/** An arbitrary constant both databases accept as the lock's name. */
const LOCK_ID = 74_610_523;
const LOCK_NAME = 'strapi-plugin-image-api:boot';
/** Past this, the boot goes on without the lock (and says so): never stuck behind a wedged peer. */
const WAIT_MS = 120_000;
const POLL_MS = 250;

type Connection = unknown;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let held: { connection: Connection; client: string } | null = null;
  const knex = () => strapi.db.connection;
  const on = (connection: Connection, sql: string, bindings: unknown[]) => knex().raw(sql, bindings as never).connection(connection as never);

  async function tryLock(connection: Connection, client: string): Promise<boolean> {
    if (client === 'postgres') {
      const result = await on(connection, 'select pg_try_advisory_lock(?) as locked', [LOCK_ID]);
      return result.rows[0].locked === true;
    }
    const [rows] = await on(connection, 'select get_lock(?, 0) as locked', [LOCK_NAME]);
    return Number(rows[0].locked) === 1;
  }

  return {
    /** Waits for the boot lock (PostgreSQL, MySQL); the lock is this process's until release(). */
    async acquire(): Promise<void> {
      const client = strapi.db.dialect.client as string;
      if (held || (client !== 'postgres' && client !== 'mysql')) return;
      const pool = knex().client as { acquireConnection(): Promise<Connection>; releaseConnection(c: Connection): Promise<void> };
      const connection = await pool.acquireConnection();
      const started = Date.now();
      let waited = false;
      while (!(await tryLock(connection, client))) {
        if (!waited) strapi.log.info('image-api: another instance is booting; waiting for it to finish its schema setup');
        waited = true;
        if (Date.now() - started > WAIT_MS) {
          strapi.log.warn(`image-api: the boot lock was not free after ${WAIT_MS / 1000} s; booting without it`);
          await pool.releaseConnection(connection);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      held = { connection, client };
    },

    /** Gives the lock back (end of the plugin's bootstrap, or a failed boot). */
    async release(): Promise<void> {
      if (!held) return;
      const { connection, client } = held;
      held = null;
      try {
        if (client === 'postgres') await on(connection, 'select pg_advisory_unlock(?)', [LOCK_ID]);
        else await on(connection, 'select release_lock(?)', [LOCK_NAME]);
      } finally {
        await (knex().client as { releaseConnection(c: Connection): Promise<void> }).releaseConnection(connection);
      }
    },
  };
};
