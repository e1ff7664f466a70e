#!/usr/bin/env node
'use strict';
/**
 * The API's errors, documented from their one source: the error table
 * (plugins/image-api/server/src/http/error-table.ts), as built in the plugin's dist/. Writes
 * docs/api.md's table of errors (a line per condition, its status, code and example message)
 * between its markers:
 *
 *   npm run docs:errors           rewrites it after a change to the table
 *   node tools/docs/errors.js     exits 1 when it is not what the table says
 *
 * tests/docs/errors.test.ts runs the check.
 */
const fs = require('fs');
const path = require('path');
const { APP_DIR } = require('../support/app/paths');

const HTTP = path.join(APP_DIR, 'plugins/image-api/dist/server/src/http');
const DOC = path.join(APP_DIR, 'docs/api.md');
const START = '<!-- errors:start (npm run docs:errors) -->';
const END = '<!-- errors:end -->';

/** Every condition of every row, with its example error: [{ name, when, status, code, message, headers }]. */
function conditions() {
  const { ERROR_TABLE } = require(path.join(HTTP, 'error-table'));
  const { errorFrom } = require(path.join(HTTP, 'api-error'));
  return Object.entries(ERROR_TABLE).flatMap(([name, row]) =>
    row.cases.map(({ when, sample }) => {
      const error = errorFrom(name, sample);
      return { name, when, status: error.status, code: error.code, message: error.message, headers: error.headers };
    })
  );
}

const cell = (text) => text.replace(/\|/g, '\\|');

function table(all) {
  const rows = all.map(({ when, status, code, message, headers }) => {
    const extra = Object.entries(headers).map(([header, value]) => `; \`${header}: ${value}\``).join('');
    return `| ${cell(when)} | ${status} | ${code} | ${cell(message)}${extra} |`;
  });
  return ['| condition | HTTP | code | message (an example) |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** What docs/api.md should hold. */
function expected() {
  const text = fs.readFileSync(DOC, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from === -1 || to === -1 || to < from) throw new Error(`${DOC}: the markers ${START} … ${END} are missing`);
  return `${text.slice(0, from + START.length)}\n${table(conditions())}\n${text.slice(to)}`;
}

/** The files that differ from what the table says, relative to the app. */
const stale = () => (fs.readFileSync(DOC, 'utf8') === expected() ? [] : [path.relative(APP_DIR, DOC)]);

module.exports = { conditions, stale };

if (require.main === module) {
  if (process.argv.includes('--write')) fs.writeFileSync(DOC, expected());
  else {
    const files = stale();
    if (files.length) {
      process.stderr.write(`not what the error table says: ${files.join(', ')} (run npm run docs:errors)\n`);
      process.exit(1);
    }
  }
}
