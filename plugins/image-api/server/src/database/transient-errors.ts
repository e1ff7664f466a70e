/**
 * Errors a database transaction may meet through no fault of its own, and that the same transaction
 * run again gets past: a deadlock (MySQL/MariaDB, PostgreSQL) or a serialization failure
 * (PostgreSQL). Anything else is not retried: it would fail again, or hide a real fault.
 */

/** MySQL/MariaDB error numbers, PostgreSQL SQLSTATE codes. */
const TRANSIENT = { errno: new Set([1213 /* ER_LOCK_DEADLOCK */]), code: new Set(['40P01' /* deadlock_detected */, '40001' /* serialization_failure */]) };

export function isTransient(error: unknown): boolean {
  const { errno, code } = (error ?? {}) as { errno?: number; code?: string };
  return (errno !== undefined && TRANSIENT.errno.has(errno)) || (code !== undefined && TRANSIENT.code.has(code));
}

/** Runs `work`, again (up to `attempts` times in all) while it fails with a transient error. */
export async function retryTransient<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error;
    }
  }
}
