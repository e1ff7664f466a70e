/**
 * The error table as the OpenAPI document shows it, built from the factories the code throws
 * (http/api-error.ts), so the document cannot list a code the code does not answer.
 */
import { errorBody, errors, type ApiError } from '../http/api-error';

/** One example refusal per row of the table (sample arguments where a factory takes some). */
const SAMPLES: ApiError[] = [
  errors.noKey(), errors.invalidKey(), errors.revokedKey(), errors.expiredKey(),
  errors.duplicated('https://img.example.com/image/Ab12Cd34Ef'), errors.quotaExceeded('1000 images'), errors.quotaExceeded('5 GB of 5 GB used'), errors.badVersion(), errors.badAction(),
  errors.emptySource(), errors.base64ViaGet(), errors.badBase64(), errors.badFormat(), errors.invalidExpiration(60, 15_552_000),
  errors.invalidAlbum(), errors.invalidWidth(), errors.invalidTransformation('unknown option "blur"'), errors.invalidSignature(), errors.noImageId(), errors.imageNotFound(), errors.notFound(), errors.methodNotAllowed(),
  errors.notAnImage(), errors.invalidImage(), errors.disabledType('svg'), errors.tooBig(10_000_000), errors.storedTooBig(10_000_000), errors.tooManyPixels(100_000_000),
  errors.tooManyFrames(500), errors.animationTooLarge(20_000_000), errors.gifTooLarge(20_000_000),
  errors.urlRefused('URL source refused: 10.0.0.1 is not a public address'), errors.urlFailed('URL source failed: the server answered 404'),
  errors.badRequest('Malformed request body'), errors.idempotencyKey(),
  errors.rateLimited('Rate limit reached: at most 50 uploads per minute', { 'Retry-After': '12' }), errors.addressBusy(4, 2), errors.addressBusy(2, 2, 'renders'),
  errors.headersTooLarge(), errors.requestTimeout(), errors.bodyStalled(), errors.bodyTooSlow(), errors.internal(),
  errors.databaseUnavailable(5), errors.unavailable('too many uploads in progress, try again shortly', 2), errors.unavailable('too many renders in progress, try again shortly', 2),
  errors.unavailable('shutting down', 5),
  errors.insufficientStorage(),
];

export interface ErrorRow {
  status: number;
  codes: number[];
  examples: Record<string, { summary: string; value: ReturnType<typeof errorBody> }>;
}

/** The codes only the transformation route answers (docs/api.md, "Serving images"). */
export const TRANSFORM_CODES = [180, 181];

/** The codes only the upload routes answer (docs/api.md, "Duplicates and quotas"). */
export const UPLOAD_CODES = [101, 105];

/**
 * The table grouped by HTTP status: the codes each status carries, with an example of each message;
 * `codes`: only the rows a route answers.
 */
export function errorRows(codes: (code: number) => boolean = () => true): ErrorRow[] {
  const rows = new Map<number, ErrorRow>();
  for (const error of SAMPLES) {
    if (!codes(error.code)) continue;
    const row = rows.get(error.status) ?? { status: error.status, codes: [], examples: {} };
    if (!row.codes.includes(error.code)) row.codes.push(error.code);
    row.examples[`code${error.code}_${Object.keys(row.examples).length + 1}`] = { summary: error.message, value: errorBody(error) };
    rows.set(error.status, row);
  }
  return [...rows.values()].sort((a, b) => a.status - b.status);
}
