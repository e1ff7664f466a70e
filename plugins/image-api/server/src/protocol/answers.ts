/**
 * How the API answers (docs/api.md, "Answers" and "Errors"): a success in the envelope of its format
 * (JSON, the text a client wants, or a redirect), an error in the error shape, or as plain text when
 * the client asked for txt or redirect.
 */
import type { Context } from 'koa';
import { errorBody, type ApiError } from '../http/api-error';
import type { Format } from './request-params';

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
