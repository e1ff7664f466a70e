/**
 * The API's errors, made from the error table (error-table.ts; docs/api.md, "Errors"). Throw
 * `errors.x(...)` anywhere on the upload path; the controller turns it into the answer. Nothing
 * outside this module makes an ApiError of its own (tests/docs/errors.test.ts).
 */
import { STATUS_CODES } from 'http';
import { ERROR_TABLE, render, type ErrorArgs, type ErrorName } from './error-table';

export class ApiError extends Error {
  constructor(
    /** HTTP status, mirrored in `status_code`. */
    readonly status: number,
    /** The API's error code, `error.code`. */
    readonly code: number,
    message: string,
    /** Extra response headers (Retry-After, ...). */
    readonly headers: Record<string, string> = {}
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The row of the table and the arguments it was made from (errorFrom). */
  origin?: ErrorOrigin;
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/**
 * A URL's host that has no address the source policy allows, or none at all. Answered as its code
 * says; a class of its own so that the Media Library's imports can give one message for every such
 * host (sources/media-library-import.ts): which internal names resolve is no admin's business.
 */
export class HostRefusal extends ApiError {}

/** Which row of the table an error was made from, with its arguments: enough to make it again (in another thread). */
export interface ErrorOrigin {
  name: ErrorName;
  args: unknown[];
}

/** The error of a row of the table (error-table.ts). */
export function errorFrom<N extends ErrorName>(name: N, args: ErrorArgs<N>): ApiError {
  const { status, code, message, headers, host } = render(name, args);
  const error = new (host ? HostRefusal : ApiError)(status, code, message, headers);
  error.origin = { name, args };
  return error;
}

/**
 * An error as a worker thread sends it back (images/decoders/): its row and arguments, plain data;
 * `errorAgain` makes the same error on the other side.
 */
export const refusalOf = (error: ApiError): ErrorOrigin => error.origin ?? { name: 'internal', args: [] };
export const errorAgain = (refusal: ErrorOrigin): ApiError => errorFrom(refusal.name, refusal.args as never);

type Factories = { [N in ErrorName]: (...args: ErrorArgs<N>) => ApiError };

/** One factory per row of the table (error-table.ts), so wording lives in one place. */
export const errors = Object.fromEntries(
  (Object.keys(ERROR_TABLE) as ErrorName[]).map((name) => [name, (...args: unknown[]) => errorFrom(name, args as never)])
) as Factories;

/** The JSON error body (docs/api.md, "Errors"). */
export function errorBody(error: ApiError) {
  return {
    status_code: error.status,
    error: { message: error.message, code: error.code },
    status_txt: STATUS_CODES[error.status] ?? 'Error',
  };
}
