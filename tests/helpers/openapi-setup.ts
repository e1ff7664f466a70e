/**
 * Fails any API test whose answers do not match the OpenAPI document (tests/helpers/openapi-check.ts),
 * and tallies the operations and statuses checked, one file per test file in tests/.artifacts/openapi-coverage/
 * (test files run in parallel workers; tests/helpers/openapi-report.js adds them up after the run).
 */
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import { takeChecked, takeViolations } from './openapi-check';

const ARTIFACTS = path.join(__dirname, '..', '.artifacts', 'openapi-coverage');

afterEach(() => {
  const violations = takeViolations();
  if (violations.length) throw new Error(`answers that break the OpenAPI document:\n${violations.join('\n')}`);
});

afterAll(() => {
  const checked = takeChecked();
  if (!checked.length) return;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const tally: Record<string, Record<string, number>> = {};
  for (const { operation, status } of checked) {
    tally[operation] ??= {};
    tally[operation][status] = (tally[operation][status] ?? 0) + 1;
  }
  fs.writeFileSync(path.join(ARTIFACTS, `${crypto.randomUUID()}.json`), `${JSON.stringify(tally)}\n`);
});
