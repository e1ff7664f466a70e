import { isDatabaseUnavailable, isDiskFull, outageAnswer } from '../../server/src/http/outages';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test.each([
  ['PostgreSQL stopped', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  ['PostgreSQL shutting down', withCode('terminating connection due to administrator command', '57P01')],
  ['PostgreSQL statement timeout', withCode('canceling statement due to statement timeout', '57014')],
  ['pg client-side timeout', new Error('Query read timeout')],
  ['pg connection dropped', new Error('Connection terminated unexpectedly')],
  ['knex pool', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
  ['MySQL connection lost', withCode('Connection lost: The server closed the connection.', 'PROTOCOL_CONNECTION_LOST')],
  ['SQLite locked', withCode('database is locked', 'SQLITE_BUSY')],
  ['wrapped', Object.assign(new Error('insert failed'), { cause: withCode('x', 'ECONNRESET') })],
])('%s: 503 with Retry-After', (_, error) => {
  expect(isDatabaseUnavailable(error)).toBe(true);
  const answer = outageAnswer(error)!;
  expect([answer.status, answer.code, answer.message]).toEqual([503, 503, 'Service unavailable: the database is not answering']);
  expect(answer.headers).toEqual({ 'Retry-After': '5' });
});

test.each([
  ['a full disk', withCode('ENOSPC: no space left on device, write', 'ENOSPC')],
  ['a quota', withCode('EDQUOT: disk quota exceeded', 'EDQUOT')],
  ['SQLite full', withCode('database or disk is full', 'SQLITE_FULL')],
])('%s: 507', (_, error) => {
  expect(isDiskFull(error)).toBe(true);
  const answer = outageAnswer(error)!;
  expect([answer.status, answer.code, answer.message]).toEqual([507, 507, 'Insufficient storage']);
});

test('anything else is not an outage (a bug: 500)', () => {
  for (const error of [new TypeError('x is undefined'), withCode('duplicate key', '23505'), withCode('syntax error', '42601'), null, 'text']) {
    expect(outageAnswer(error)).toBeNull();
  }
});
