/**
 * better-sqlite3 compiles every statement knex hands it afresh (knex calls `prepare` per query): a
 * 25-column insert took 21 µs compiled each time, 9 µs kept, and an upload runs a dozen. The texts repeat (values are bound, not inlined), so each
 * connection keeps its last compiled statements and hands them out again. knex runs a statement with
 * `all` or `run`, which finish before they return, so a statement handed out twice is never busy;
 * SQLite recompiles a kept statement itself when the schema changes under it. docs/performance.md,
 * "Statements".
 */

interface Connection {
  prepare(sql: string): unknown;
}

/** How many statements a connection keeps (least recently used dropped first). */
export const KEPT_STATEMENTS = 256;

export function keepCompiledStatements(conn: Connection, size = KEPT_STATEMENTS): void {
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
