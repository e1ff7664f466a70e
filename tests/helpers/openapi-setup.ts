/**
 * Fails any API test whose answers do not match the OpenAPI document (tests/helpers/openapi-check.ts),
 * and tallies the operations and statuses checked, per run, in tests/.artifacts/openapi-coverage.json.
 */
import fs from 'fs';
import path from 'path';
import { takeChecked, takeViolations } from './openapi-check';

const ARTIFACT = path.join(__dirname, '..', '.artifacts', 'openapi-coverage.json');

afterEach(() => {
  const violations = takeViolations();
  if (violations.length) throw new Error(`answers that break the OpenAPI document:\n${violations.join('\n')}`);
});

afterAll(() => {
  const checked = takeChecked();
  if (!checked.length) return;
  fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
  const tally: Record<string, Record<string, number>> = fs.existsSync(ARTIFACT) ? JSON.parse(fs.readFileSync(ARTIFACT, 'utf8')) : {};
  for (const { operation, status } of checked) {
    tally[operation] ??= {};
    tally[operation][status] = (tally[operation][status] ?? 0) + 1;
  }
  fs.writeFileSync(ARTIFACT, `${JSON.stringify(tally, null, 2)}\n`);
});
