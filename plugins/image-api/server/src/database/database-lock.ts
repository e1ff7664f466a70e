/**
 * A lock in the database, shared by every instance: a PostgreSQL advisory lock, or MySQL/MariaDB's
 * GET_LOCK, held by one pooled connection until released (a process that dies releases it with its
 * connection). SQLite (one box, one file) has none: there every lock is granted at once.
 */
import type { Core } from '@strapi/strapi';

type Connection = unknown;

export interface HeldLock {
  release(): Promise<void>;
}

export interface DatabaseLock {
  /** The lock if it is free now, else null (someone else holds it). */
  tryAcquire(): Promise<HeldLock | null>;
  /** Waits for the lock, polling; null if `waitMs` passed first. */
  acquire(waitMs: number, onWait?: () => void): Promise<HeldLock | null>;
}

const NOT_LOCKED: HeldLock = { release: async () => undefined };
const POLL_MS = 250;

/** A numeric id for PostgreSQL (a 31-bit hash of the name), the name itself for MySQL. */
const advisoryId = (name: string) => [...name].reduce((hash, char) => (Math.imul(hash, 31) + char.charCodeAt(0)) | 0, 7) & 0x7fffffff;

export function databaseLock(strapi: Core.Strapi, name: string): DatabaseLock {
  const knex = () => strapi.db.connection;
  const pool = () => knex().client as { acquireConnection(): Promise<Connection>; releaseConnection(c: Connection): Promise<void> };
  const on = (connection: Connection, sql: string, bindings: unknown[]) => knex().raw(sql, bindings as never).connection(connection as never);
  const client = () => strapi.db.dialect.client as string;

  async function tryOn(connection: Connection): Promise<boolean> {
    if (client() === 'postgres') return (await on(connection, 'select pg_try_advisory_lock(?) as locked', [advisoryId(name)])).rows[0].locked === true;
    const [rows] = await on(connection, 'select get_lock(?, 0) as locked', [name]);
    return Number(rows[0].locked) === 1;
  }

  /**
   * Gives back a connection whose lock statement failed (a read timeout, say), closed: a hung server
   * that wakes may still run the statement and take the lock, which would then stay with a pooled
   * connection for good, and every later try on another connection would find it taken. Closing the
   * session releases whatever it holds; the pool drops a connection knex marks disposed.
   */
  async function discard(connection: Connection, error: unknown): Promise<void> {
    (connection as { __knex__disposed?: unknown }).__knex__disposed = error;
    (knex().client as { destroyRawConnection(c: Connection): Promise<void> }).destroyRawConnection(connection).catch(() => undefined);
    await pool().releaseConnection(connection);
  }

  const held = (connection: Connection): HeldLock => ({
    async release() {
      try {
        if (client() === 'postgres') await on(connection, 'select pg_advisory_unlock(?)', [advisoryId(name)]);
        else await on(connection, 'select release_lock(?)', [name]);
      } catch (error) {
        await discard(connection, error);
        throw error;
      }
      await pool().releaseConnection(connection);
    },
  });

  return {
    async tryAcquire() {
      if (client() !== 'postgres' && client() !== 'mysql') return NOT_LOCKED;
      const connection = await pool().acquireConnection();
      try {
        if (await tryOn(connection)) return held(connection);
      } catch (error) {
        await discard(connection, error);
        throw error;
      }
      await pool().releaseConnection(connection);
      return null;
    },

    async acquire(waitMs, onWait) {
      const started = Date.now();
      for (let attempt = 0; ; attempt++) {
        const lock = await this.tryAcquire();
        if (lock) return lock;
        if (attempt === 0) onWait?.();
        if (Date.now() - started > waitMs) return null;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
  };
}
