/**
 * The API's errors have one source, the error table (plugins/image-api/server/src/http/error-table.ts):
 * docs/api.md's table is generated from it (tools/docs/errors.js), the OpenAPI document shows an
 * example of each of its conditions, and no code answers an error that is not one of its rows.
 */
import fs from 'fs';
import path from 'path';
import { ERROR_TABLE } from '../../plugins/image-api/server/src/http/error-table';
import { errorBody, errorFrom, errors } from '../../plugins/image-api/server/src/http/api-error';
import { openApiDocument } from '../../plugins/image-api/server/src/openapi/document';
import { conditions, stale } from '../../tools/docs/errors';

const SERVER = path.join(__dirname, '../../plugins/image-api/server/src');

/** Every module of the server, by its path under server/src, with its text. */
function modules(dir = SERVER): [string, string][] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(file);
    return /\.tsx?$/.test(entry.name) ? [[path.relative(SERVER, file), fs.readFileSync(file, 'utf8')]] : [];
  });
}

test("docs/api.md's table of errors is what the error table says (npm run docs:errors)", () => {
  expect(stale()).toEqual([]);
  expect(conditions().length).toBe(Object.values(ERROR_TABLE).reduce((sum, row) => sum + row.cases.length, 0));
});

test('every row has at least one condition, each described', () => {
  const rows = Object.entries(ERROR_TABLE);
  expect(rows.length).toBeGreaterThan(40);
  expect(rows.filter(([, row]) => row.cases.length === 0).map(([name]) => name)).toEqual([]);
  expect(conditions().filter(({ when }) => when.length < 5).map(({ name }) => name)).toEqual([]);
});

test("every condition of the table is an example in the OpenAPI document, under its row's status and code", () => {
  const document = openApiDocument({
    publicUrl: 'http://127.0.0.1:1337', imgbbPath: '/1/upload', transformPath: '/img',
    cacheMaxAgeSeconds: 2592000, maxBytes: 10_000_000, minExpiration: 60, maxExpiration: 15_552_000,
  }) as any;
  const shown = new Set<string>();
  for (const operations of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(operations)) {
      for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        const codes: number[] = json?.schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum ?? [];
        for (const example of Object.values<any>(json?.examples ?? {})) {
          expect(codes).toContain(example.value.error.code);
          shown.add(JSON.stringify([Number(status), example.value]));
        }
      }
    }
  }
  const missing = Object.entries(ERROR_TABLE).flatMap(([name, row]) =>
    row.cases.map((condition) => errorFrom(name as keyof typeof ERROR_TABLE, condition.sample as never)).filter((error) => !shown.has(JSON.stringify([error.status, errorBody(error)]))).map((error) => `${name}: ${error.message}`)
  );
  expect(missing).toEqual([]);
});

test('no code makes an error of its own: every refusal is errors.<row>(...), and every row is answered somewhere', () => {
  const all = modules();
  const made = all.filter(([file, text]) => file !== path.join('http', 'api-error.ts') && /new (ApiError|HostRefusal)\b|extends (ApiError|HostRefusal)\b/.test(text)).map(([file]) => file);
  expect(made).toEqual([]);
  const rows = new Set(Object.keys(ERROR_TABLE));
  const called = new Set(all.filter(([file]) => file !== path.join('openapi', 'error-examples.ts')).flatMap(([, text]) => [...text.matchAll(/(?<![\w/.-])errors\.([a-z]\w+)\b(?!\.)/g)].map((match) => match[1])));
  // Strapi's own `errors` (ApplicationError, ValidationError) are not ours.
  expect([...called].filter((name) => !rows.has(name) && !/Error$/.test(name))).toEqual([]);
  expect([...rows].filter((name) => !called.has(name))).toEqual([]);
  expect(Object.keys(errors).sort()).toEqual([...rows].sort());
});
