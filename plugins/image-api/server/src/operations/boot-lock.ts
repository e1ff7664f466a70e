/**
 * Several instances booting at once on an empty database race in Strapi's own schema setup
 * (`relation "strapi_migrations" already exists`, duplicate types) and crash. The plugin serializes
 * boots: it takes a database lock (database/database-lock.ts) when it registers, before Strapi creates or
 * migrates the schema, and gives it back at the end of its bootstrap, so the next instance finds
 * the schema made.
 */
import type { Core } from '@strapi/strapi';
import { databaseLock, type HeldLock } from '../database/database-lock';

/** Past this, the boot goes on without the lock (and says so): never stuck behind a wedged peer. */
const WAIT_MS = 120_000;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let held: HeldLock | null = null;
  const lock = databaseLock(strapi, 'strapi-plugin-image-api:boot');

  return {
    /** Waits for the boot lock; it is this process's until release(). */
    async acquire(): Promise<void> {
      if (held) return;
      held = await lock.acquire(WAIT_MS, () => strapi.log.info('image-api: another instance is booting; waiting for it to set the schema up'));
      if (!held) strapi.log.warn(`image-api: the boot lock was not free after ${WAIT_MS / 1000} s; booting without it`);
    },

    /** Gives the lock back (end of the plugin's bootstrap, or a failed boot). */
    async release(): Promise<void> {
      const releasing = held;
      held = null;
      await releasing?.release();
    },
  };
};
