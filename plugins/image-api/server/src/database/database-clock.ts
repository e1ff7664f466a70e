/**
 * Ages of the journal's and the Idempotency-Key's rows are measured on the database's clock, never an
 * instance's: several instances' clocks disagree, and a row one instance wrote must look as old to
 * every other. On PostgreSQL and MySQL the row is stamped with CURRENT_TIMESTAMP and compared with it;
 * on SQLite (one box, one clock) with the process's time, as Strapi stores it there.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';

export function databaseClock(strapi: Core.Strapi) {
  const client = () => strapi.db.dialect.client as string;
  const knex = () => strapi.db.connection;

  return {
    /** The value that stamps a row with the current time. */
    now(): Date | Knex.Raw {
      return client() === 'sqlite' ? new Date() : knex().fn.now();
    },

    /** The value that stamps a row with the current time plus `ms`. */
    later(ms: number): Date | Knex.Raw {
      if (client() === 'postgres') return knex().raw(`current_timestamp + (? * interval '1 millisecond')`, [ms]);
      if (client() === 'mysql') return knex().raw('current_timestamp(6) + interval ? microsecond', [Math.round(ms * 1000)]);
      return new Date(Date.now() + ms);
    },

    /** Restricts `query` to rows whose `column` is at least `ms` old. */
    olderThan<Q extends Knex.QueryBuilder>(query: Q, column: string, ms: number): Q {
      if (client() === 'postgres') return query.whereRaw(`?? <= current_timestamp - (? * interval '1 millisecond')`, [column, ms]) as Q;
      if (client() === 'mysql') return query.whereRaw('?? <= current_timestamp(6) - interval ? microsecond', [column, ms * 1000]) as Q;
      return query.where(column, '<=', new Date(Date.now() - ms)) as Q;
    },

    /** Restricts `query` to rows whose `column` is less than `ms` old. */
    youngerThan<Q extends Knex.QueryBuilder>(query: Q, column: string, ms: number): Q {
      if (client() === 'postgres') return query.whereRaw(`?? > current_timestamp - (? * interval '1 millisecond')`, [column, ms]) as Q;
      if (client() === 'mysql') return query.whereRaw('?? > current_timestamp(6) - interval ? microsecond', [column, ms * 1000]) as Q;
      return query.where(column, '>', new Date(Date.now() - ms)) as Q;
    },
  };
}
