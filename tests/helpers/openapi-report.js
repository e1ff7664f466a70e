// After the run: how many answers the OpenAPI check validated, by status and by operation
// (tests/helpers/openapi-setup.ts writes the tally).
const fs = require('fs');
const path = require('path');

module.exports = async () => {
  const dir = path.join(__dirname, '..', '.artifacts', 'openapi-coverage');
  if (!fs.existsSync(dir)) return;
  /** @type {Record<string, Record<string, number>>} */
  const tally = {};
  for (const name of fs.readdirSync(dir)) {
    for (const [operation, counts] of Object.entries(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')))) {
      tally[operation] ??= {};
      for (const [status, count] of Object.entries(counts)) tally[operation][status] = (tally[operation][status] ?? 0) + count;
    }
  }
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
