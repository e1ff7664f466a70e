/**
 * How the API answers (docs/api.md, "Answers" and "Errors"): a success in the envelope of its format
 * (JSON, the text a client wants, or a redirect), an error in the error shape, or as plain text when
 * the client asked for txt or redirect.
 */
import type { Context } from 'koa';
import { errorBody, errors, isApiError, type ApiError } from '../http/api-error';
import { outageAnswer } from '../http/outages';
import type { Format } from './request-params';

/** The answer shapes of a success: the API's own, or imgbb's (docs/api.md, "The imgbb dialect"). */
export type Dialect = 'api' | 'imgbb';

/** How a client asked to be answered: the dialect of its route or its image field, and the format it named. */
export interface Asked {
  dialect: Dialect;
  format: Format;
}

/** Where the handler of failures reports what it could not answer from the error table. */
export interface FailureLog {
  warn(message: string): void;
  error(message: string): void;
}

/** An outage fails every request at once: it is logged once per this many ms, not once per request. */
export const OUTAGE_LOG_MS = 10_000;

/**
 * The one handler of the upload API's failures: whatever a step threw is answered in the format the
 * client asked. An error of the table is answered as it is; an outage (the database away, the disk
 * full) as 503 or 507 and logged once per OUTAGE_LOG_MS; anything else as 500, logged with its stack.
 * Both dialects answer errors in the API's error shape, statuses and codes (docs/api.md, "The imgbb
 * dialect": imgbb's clients read `error.message`). Returns the error answered.
 */
export function failureHandler(log: FailureLog, now: () => number = Date.now) {
  let outageLoggedAt = -Infinity;
  const asApiError = (error: unknown, what: string): ApiError => {
    if (isApiError(error)) return error;
    const outage = outageAnswer(error);
    if (outage) {
      if (now() - outageLoggedAt > OUTAGE_LOG_MS) {
        outageLoggedAt = now();
        log.warn(`image-api: ${what}: ${outage.message} (${(error as Error)?.message ?? error})`);
      }
      return outage;
    }
    log.error(`image-api: ${what} failed: ${(error as Error)?.stack ?? error}`);
    return errors.internal();
  };
  return (ctx: Context, error: unknown, asked: Asked): ApiError => {
    const answered = asApiError(error, `${ctx.method} ${ctx.path}`);
    answerError(ctx, answered, asked.format);
    return answered;
  };
}

export function answerError(ctx: Context, error: ApiError, format: Format): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  if (format === 'json') {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = errorBody(error);
  } else {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = error.message;
  }
}

export interface Success {
  /** `success.message` of the JSON envelope. */
  message: string;
  /** What the JSON envelope holds besides the status (`image`, `albums`). */
  json?: Record<string, unknown>;
  /** A JSON answer in another dialect's shape, sent as it is instead of the envelope. */
  whole?: Record<string, unknown>;
  /** The txt answer. */
  text: string;
  /** Where a redirect goes; without one, a redirect answers as JSON. */
  location?: string;
}

/** The JSON envelope of a success: status, what it holds, status text (in the document's order). */
export const successBody = (message: string, json: Record<string, unknown> = {}) => ({
  status_code: 200,
  success: { message, code: 200 },
  ...json,
  status_txt: 'OK',
});

export function answerSuccess(ctx: Context, format: Format, { message, json, whole, text, location }: Success): void {
  if (format === 'redirect' && location) {
    ctx.status = 302;
    ctx.set('Location', location);
    ctx.body = '';
  } else if (format === 'txt') {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = text;
  } else {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = whole ?? successBody(message, json);
  }
}
