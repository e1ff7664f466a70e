/**
 * The one handler of the upload API's failures (protocol/answers.ts, `failureHandler`): whatever a
 * step of the pipeline threw, answered in each format and dialect a client may ask for, through a
 * real Koa context (status, headers, type, body as Koa would send them).
 */
import { IncomingMessage, ServerResponse } from 'http';
import { Socket } from 'net';
import Koa from 'koa';
import { errors } from '../../server/src/http/api-error';
import { failureHandler, OUTAGE_LOG_MS, type Dialect } from '../../server/src/protocol/answers';
import type { Format } from '../../server/src/protocol/request-params';

function contextFor(method = 'POST', url = '/api/1/upload') {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  return new Koa().createContext(req, new ServerResponse(req));
}

function quietLog() {
  const lines: Array<['warn' | 'error', string]> = [];
  return { lines, warn: (message: string) => lines.push(['warn', message]), error: (message: string) => lines.push(['error', message]) };
}

const FORMATS: Format[] = ['json', 'txt', 'redirect'];
const DIALECTS: Dialect[] = ['api', 'imgbb'];
const EVERY = FORMATS.flatMap((format) => DIALECTS.map((dialect) => [format, dialect] as const));

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe.each(EVERY)('format %s, dialect %s', (format, dialect) => {
  /** The answer as a client sees it: status, the headers that matter, and the body as it is sent. */
  function answer(thrown: unknown) {
    const ctx = contextFor();
    const log = quietLog();
    const answered = failureHandler(log)(ctx, thrown, { format, dialect });
    const body = typeof ctx.body === 'string' ? ctx.body : JSON.parse(JSON.stringify(ctx.body));
    return { answered, status: ctx.status, type: ctx.response.get('Content-Type'), retryAfter: ctx.response.get('Retry-After'), body, log: log.lines };
  }

  /** What each format sends for an error (both dialects keep the API's error shape: docs/api.md, "The imgbb dialect"). */
  const expected = (status: number, code: number, message: string, statusText: string) =>
    format === 'json'
      ? { type: 'application/json; charset=utf-8', body: { status_code: status, error: { message, code }, status_txt: statusText } }
      : { type: 'text/plain; charset=utf-8', body: message };

  test('an error of the table: its status, code, message and headers', () => {
    const res = answer(errors.rateLimited('Rate limit exceeded', { 'Retry-After': '7' }));
    expect([res.status, res.retryAfter]).toEqual([429, '7']);
    expect({ type: res.type, body: res.body }).toEqual(expected(429, 429, 'Rate limit exceeded', 'Too Many Requests'));
    expect(res.answered.code).toBe(429);
    expect(res.log).toEqual([]);
  });

  test('a refusal without headers: no Retry-After', () => {
    const res = answer(errors.invalidKey());
    expect([res.status, res.retryAfter]).toEqual([401, '']);
    expect({ type: res.type, body: res.body }).toEqual(expected(401, 100, 'Invalid API key', 'Unauthorized'));
  });

  test('the database away: 503 with Retry-After, logged as a warning', () => {
    const res = answer(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    expect([res.status, res.retryAfter]).toEqual([503, '5']);
    expect({ type: res.type, body: res.body }).toEqual(expected(503, 503, 'Service unavailable: the database is not answering', 'Service Unavailable'));
    expect(res.log).toEqual([['warn', 'image-api: POST /api/1/upload: Service unavailable: the database is not answering (connect ECONNREFUSED 127.0.0.1:5432)']]);
  });

  test('a full disk: 507', () => {
    const res = answer(withCode('ENOSPC: no space left on device, write', 'ENOSPC'));
    expect(res.status).toBe(507);
    expect({ type: res.type, body: res.body }).toEqual(expected(507, 507, 'Insufficient storage', 'Insufficient Storage'));
  });

  test('anything else: 500, its stack logged as an error', () => {
    const bug = new TypeError('x is undefined');
    const res = answer(bug);
    expect(res.status).toBe(500);
    expect({ type: res.type, body: res.body }).toEqual(expected(500, 500, 'Internal error', 'Internal Server Error'));
    expect(res.log).toEqual([['error', `image-api: POST /api/1/upload failed: ${bug.stack}`]]);
  });
});

test('an outage is logged once per OUTAGE_LOG_MS, whatever the number of requests it fails', () => {
  let now = 1_000_000;
  const log = quietLog();
  const answer = failureHandler(log, () => now);
  const outage = withCode('database is locked', 'SQLITE_BUSY');
  for (let i = 0; i < 5; i++) answer(contextFor(), outage, { format: 'json', dialect: 'api' });
  expect(log.lines).toHaveLength(1);
  now += OUTAGE_LOG_MS + 1;
  answer(contextFor('GET', '/1/upload'), outage, { format: 'txt', dialect: 'imgbb' });
  expect(log.lines.map(([level, line]) => [level, line.split(':').slice(0, 2).join(':')])).toEqual([
    ['warn', 'image-api: POST /api/1/upload'],
    ['warn', 'image-api: GET /1/upload'],
  ]);
});
