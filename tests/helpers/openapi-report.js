// After the run: how many answers the OpenAPI check validated, by status and by operation
// (tests/helpers/openapi-setup.ts writes the tally).
const fs = require('fs');
const path = require('path');

module.exports = async () => {
  const file = path.join(__dirname, '..', '.artifacts', 'openapi-coverage.json');
  if (!fs.existsSync(file)) return;
  const tally = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byStatus = {};
  let total = 0;
  for (const statuses of Object.values(tally)) {
    for (const [status, count] of Object.entries(statuses)) {
      byStatus[status] = (byStatus[status] ?? 0) + count;
      total += count;
    }
  }
  const statuses = Object.entries(byStatus).map(([status, count]) => `${status}×${count}`).join(' ');
  process.stdout.write(`\nOpenAPI check: ${total} answers validated against /api/1/openapi.json, ${Object.keys(tally).length} operations; by status: ${statuses}\n`);
  for (const [operation, counts] of Object.entries(tally).sort()) {
    process.stdout.write(`  ${operation}: ${Object.entries(counts).map(([s, n]) => `${s}×${n}`).join(' ')}\n`);
  }
};
