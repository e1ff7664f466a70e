/**
 * The plugin's transactions, through Strapi's (`strapi.db.transaction`), with the error that really
 * ended them. When the connection dies under a transaction before its first statement (a database
 * stopping: BEGIN fails on a connection already closed), knex hands the callback a transaction it has
 * already marked complete, and the first query fails with "Transaction query already complete": a
 * message that says nothing of the outage. The error that ended the transaction is the one knex
 * rejected its `executionPromise` with; it becomes that message's `cause`, so http/outages.ts
 * answers 503 as for any other lost connection (the fault suite's stopped PostgreSQL met it once).
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';

const ALREADY_COMPLETE = /Transaction query already complete/;

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export function transaction<T>(strapi: Core.Strapi, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return strapi.db.transaction(async ({ trx }) => {
    try {
      return await work(trx);
    } catch (error) {
      const refused = error as Error & { cause?: unknown };
      if (refused instanceof Error && ALREADY_COMPLETE.test(refused.message) && refused.cause === undefined) {
        const ended = await (trx as Knex.Transaction & { executionPromise?: Promise<unknown> }).executionPromise?.then(
          () => undefined,
          (reason: unknown) => reason
        );
        if (ended !== undefined) refused.cause = ended;
      }
      throw error;
    }
  }) as Promise<T>;
}
