import path from 'path';

import { keepCompiledStatements } from './sqlite/statement-cache';

type Client = 'sqlite' | 'postgres' | 'mysql';

// Reads DATABASE_* variables. DATABASE_URL, when set, wins over host/port/name/user/password.
export default ({ env }) => {
  const client: Client = env('DATABASE_CLIENT', 'sqlite');
  const url = env('DATABASE_URL', '');
  const server = (defaultPort: number, defaultUser: string) =>
    url
      ? { connectionString: url }
      : {
          host: env('DATABASE_HOST', '127.0.0.1'),
          port: env.int('DATABASE_PORT', defaultPort),
          database: env('DATABASE_NAME', 'strapi'),
          user: env('DATABASE_USERNAME', defaultUser),
          password: env('DATABASE_PASSWORD', ''),
        };

  // A database that stops answering must not hold requests for minutes: statements and new
  // connections time out (docs/operations.md), and the API answers 503 with Retry-After.
  const queryTimeoutMs = env.int('DATABASE_QUERY_TIMEOUT_MS', 5000);
  const connectTimeoutMs = env.int('DATABASE_CONNECT_TIMEOUT_MS', 5000);

  const connections = {
    sqlite: {
      connection: {
        // Relative to the app root (this file runs from dist/config); absolute paths are kept.
        filename: path.resolve(__dirname, '..', '..', env('DATABASE_FILENAME', '.tmp/data.db')),
      },
      useNullAsDefault: true,
      pool: {
        // WAL: readers never wait for writers, and a commit costs no fsync (synchronous=NORMAL keeps
        // the database consistent after a crash; the last commits may be lost on power failure).
        // busy_timeout: the CLI and a second process can share the file with the server. Compiled
        // statements are kept for the next query of the same text (./sqlite/statement-cache.ts).
        afterCreate(conn: { pragma(sql: string): unknown; prepare(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('busy_timeout = 5000');
          keepCompiledStatements(conn);
          done(null, conn);
        },
      },
    },
    postgres: {
      connection: {
        ...server(5432, 'postgres'),
        schema: env('DATABASE_SCHEMA', 'public'),
        // Server side: a statement that runs too long (locks) is cancelled. Client side: a server that
        // does not answer at all (hung, unreachable) fails the query and the connection attempt.
        statement_timeout: queryTimeoutMs,
        query_timeout: queryTimeoutMs + 1000,
        connectionTimeoutMillis: connectTimeoutMs,
      },
      pool: { min: env.int('DATABASE_POOL_MIN', 0), max: env.int('DATABASE_POOL_MAX', 10) },
    },
    mysql: {
      connection: { ...server(3306, 'root'), connectTimeout: connectTimeoutMs },
      pool: { min: env.int('DATABASE_POOL_MIN', 0), max: env.int('DATABASE_POOL_MAX', 10) },
    },
  };

  if (!(client in connections)) {
    throw new Error(`DATABASE_CLIENT must be one of sqlite, postgres, mysql (got "${client}")`);
  }

  return {
    connection: {
      client,
      ...connections[client],
      // Waiting for a connection of the pool (all busy, or none can be made).
      acquireConnectionTimeout: env.int('DATABASE_CONNECTION_TIMEOUT', 10000),
    },
  };
};
