/**
 * The error table as the OpenAPI document shows it: an example of every condition of every row of
 * the table (http/error-table.ts), so the document lists every code the code answers.
 */
import { errorBody, errorFrom, type ApiError } from '../http/api-error';
import { ERROR_TABLE, type ErrorName, type ErrorRow as TableRow } from '../http/error-table';

/** Every row's every condition, as its example error, with the row's name and which routes answer it. */
export function errorSamples(): { name: ErrorName; when: string; only?: 'upload' | 'transform' | 'report'; error: ApiError }[] {
  return (Object.entries(ERROR_TABLE) as [ErrorName, TableRow<unknown[]>][]).flatMap(([name, row]) =>
    row.cases.map((condition) => ({ name, when: condition.when, only: row.only, error: errorFrom(name, condition.sample as never) }))
  );
}

const codesOnly = (only: 'upload' | 'transform' | 'report') => [...new Set(errorSamples().filter((sample) => sample.only === only).map(({ error }) => error.code))];

export interface ErrorRow {
  status: number;
  codes: number[];
  examples: Record<string, { summary: string; description: string; value: ReturnType<typeof errorBody> }>;
}

/** The codes only the transformation route answers (docs/api.md, "Serving images"). */
export const TRANSFORM_CODES = codesOnly('transform');

/** The codes only the upload routes answer (docs/api.md, "Duplicates and quotas"). */
export const UPLOAD_CODES = codesOnly('upload');

/** The codes only a viewer's report answers (a small body's 413). */
export const REPORT_CODES = codesOnly('report');

/**
 * The table grouped by HTTP status: the codes each status carries, with an example of each message;
 * `codes`: only the rows a route answers.
 */
export function errorRows(codes: (code: number) => boolean = () => true): ErrorRow[] {
  const rows = new Map<number, ErrorRow>();
  for (const { error, when } of errorSamples()) {
    if (!codes(error.code)) continue;
    const row = rows.get(error.status) ?? { status: error.status, codes: [], examples: {} };
    if (!row.codes.includes(error.code)) row.codes.push(error.code);
    row.examples[`code${error.code}_${Object.keys(row.examples).length + 1}`] = { summary: error.message, description: when, value: errorBody(error) };
    rows.set(error.status, row);
  }
  return [...rows.values()].sort((a, b) => a.status - b.status);
}
