/**
 * A unique index refused a row: another request or instance wrote the same one first (an
 * Idempotency-Key's twin, a bootstrap key created by two instances booting at once). By driver:
 * PostgreSQL's SQLSTATE, MySQL's errno, SQLite's code; knex may wrap the driver's error.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; errno?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505' || e.errno === 1062 || e.code === 'SQLITE_CONSTRAINT_UNIQUE') return true;
  }
  return false;
}
