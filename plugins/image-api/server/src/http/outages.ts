/**
 * Failures that are not the request's fault nor a bug, but the deployment's: the database does not
 * answer (stopped, hung past its statement timeout, out of connections) or the disk is full. They
 * answer 503 with `Retry-After` and 507, in the error shape, instead of 500 (docs/api.md, "Errors"): a
 * client learns to come back later, and a load balancer sees the instance is in trouble.
 */
import { errors, type ApiError } from './api-error';

/** Seconds a client is asked to wait before trying again after a database outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** Error codes of a database (or its connection) that is away, by driver. */
const UNAVAILABLE_CODES = new Set([
  // Node's sockets
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTCONN',
  // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, connection failures, too many
  // connections, statement timeout (57014 is also a cancelled query: ours are only cancelled by it)
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300', '57014',
  // MySQL/MariaDB (mysql2)
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  // SQLite: the file is locked by another process for longer than busy_timeout
  'SQLITE_BUSY', 'SQLITE_LOCKED',
]);

/** Messages of the same, for drivers that give no code (pg's client-side timeouts, knex's pool). */
const UNAVAILABLE_MESSAGES = [
  /Knex: Timeout acquiring a connection/i,
  /Query read timeout/i,
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /timeout exceeded when trying to connect/i,
  /server closed the connection unexpectedly/i,
  /Cannot enqueue .* after fatal error/i,
];

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

type ErrorLike = { code?: unknown; errno?: unknown; message?: unknown; name?: unknown; cause?: unknown };

/** The error and the errors it wraps (knex and pg nest the driver's error). */
function* chain(error: unknown): Generator<ErrorLike> {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current); current = (current as ErrorLike).cause) {
    seen.add(current);
    yield current as ErrorLike;
  }
}

export function isDiskFull(error: unknown): boolean {
  for (const link of chain(error)) if (DISK_FULL_CODES.has(String(link.code))) return true;
  return false;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const link of chain(error)) {
    if (UNAVAILABLE_CODES.has(String(link.code))) return true;
    if (link.name === 'KnexTimeoutError') return true;
    const message = String(link.message ?? '');
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** The API's answer to a deployment fault, or null for anything else (a bug: 500). */
export function outageAnswer(error: unknown): ApiError | null {
  if (isDiskFull(error)) return errors.insufficientStorage();
  if (isDatabaseUnavailable(error)) return errors.databaseUnavailable(OUTAGE_RETRY_AFTER_SECONDS);
  return null;
}
