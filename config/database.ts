import path from 'path';

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
        // busy_timeout: the CLI and a second process can share the file with the server.
        afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('busy_timeout = 5000');
          done(null, conn);
        },
      },
    },
    postgres: {
      connection: { ...server(5432, 'postgres'), schema: env('DATABASE_SCHEMA', 'public') },
      pool: { min: env.int('DATABASE_POOL_MIN', 0), max: env.int('DATABASE_POOL_MAX', 10) },
    },
    mysql: {
      connection: server(3306, 'root'),
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
      acquireConnectionTimeout: env.int('DATABASE_CONNECTION_TIMEOUT', 60000),
    },
  };
};
