import path from 'path';

import { sqlitePool } from 'strapi-plugin-image-api/sqlite';

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
      // WAL, no fsync per commit, compiled statements kept: the plugin's settings for
      // an app's SQLite connection (plugins/image-api/server/src/database/sqlite-connection.ts).
      pool: sqlitePool(),
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
