/**
 * Settings for an app's SQLite connection (docs/adding-the-plugin.md, step 2; the package exports
 * them as `strapi-plugin-image-api/sqlite`, for the app's `config/database.ts`). better-sqlite3 runs
 * every statement on the JavaScript thread that all requests share, so what a statement waits for,
 * every request waits for:
 *
 * - WAL (`journal_mode = WAL`, kept in the database file): readers never wait for the writer, and a
 *   commit appends to the log instead of rewriting pages; with `synchronous = NORMAL` a commit costs
 *   no fsync (the database stays consistent after a crash; the last commits may be lost on power
 *   failure). Under Strapi's defaults (a rollback journal, `synchronous = FULL`) each upload's two
 *   commits wait for the disk on that thread: 0.64 of the bare pipeline against about 0.75 for a
 *   1.7 MP JPEG in the upload benchmark (docs/performance.md, "SQLite for an app").
 * - Compiled statements kept (keepCompiledStatements).
 *
 * A lock held by another process (the key CLI beside the server) is waited for up to 5 s: that is
 * better-sqlite3's own default (its `timeout` option), which knex leaves as it is.
 */

interface Connection {
  prepare(sql: string): unknown;
  pragma(sql: string): unknown;
  close?(): unknown;
}

/** How many statements a connection keeps (least recently used dropped first). */
export const KEPT_STATEMENTS = 256;

/**
 * better-sqlite3 compiles every statement knex hands it afresh (knex calls `prepare` per query): a
 * 25-column insert took 21 µs compiled each time, 9 µs kept, and an upload runs a dozen. The texts
 * repeat (values are bound, not inlined), so each connection keeps its last compiled statements and
 * hands them out again. knex runs a statement with `all` or `run`, which finish before they return,
 * so a statement handed out twice is never busy; SQLite recompiles a kept statement itself when the
 * schema changes under it. docs/performance.md, "Statements".
 */
export function keepCompiledStatements(conn: Pick<Connection, 'prepare'>, size = KEPT_STATEMENTS): void {
  const compile = conn.prepare.bind(conn);
  const kept = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement !== undefined) {
      // Most recently used last: Map keeps insertion order.
      kept.delete(sql);
    } else {
      statement = compile(sql);
      if (kept.size >= size) kept.delete(kept.keys().next().value as string);
    }
    kept.set(sql, statement);
    return statement;
  };
}

/** Applies the settings above to a new connection. */
export function tuneSqliteConnection(conn: Connection): void {
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  keepCompiledStatements(conn);
}

/**
 * The `pool` of an SQLite connection in `config/database.ts`: each connection the pool makes is
 * tuned (tuneSqliteConnection) before its first statement; one that cannot be is closed (knex
 * would not: its file stayed open) and handed back with the error, and the pool does not use it.
 * Typed as Strapi types a pool's `afterCreate`, so it fits an app's strictly typed config.
 */
export function sqlitePool(): { afterCreate: (conn: unknown, done: (error?: Error, conn?: unknown) => void) => void } {
  return {
    afterCreate(conn, done) {
      try {
        tuneSqliteConnection(conn as Connection);
      } catch (error) {
        try {
          (conn as Connection).close?.();
        } catch {
          // Closing is a courtesy: the error that matters is the one handed back.
        }
        done(error as Error, conn);
        return;
      }
      done(undefined, conn);
    },
  };
}
