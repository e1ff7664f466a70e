#!/usr/bin/env node
'use strict';
/**
 * The plugin's options, documented from their one source: the joi schema's descriptions and defaults
 * (plugins/image-api/server/src/config/schema.ts) and their variables (environment.ts), as built in
 * the plugin's dist/. Writes them into docs/configuration.md (a table) and .env.example (commented
 * variables), each between its markers:
 *
 *   npm run docs:options          rewrites both after a schema change
 *   node tools/docs/options.js    exits 1, naming the file, when either is not what the schema says
 *
 * tests/docs/options.test.ts runs the check.
 */
const fs = require('fs');
const path = require('path');
const { APP_DIR } = require('../support/app/paths');

const CONFIG = path.join(APP_DIR, 'plugins/image-api/dist/server/src/config');
const DOC = path.join(APP_DIR, 'docs/configuration.md');
const ENV_EXAMPLE = path.join(APP_DIR, '.env.example');
/** Variables .env.example lists in its own sections (the server's and the secrets'). */
const ELSEWHERE_IN_ENV_EXAMPLE = new Set(['PUBLIC_URL', 'IMAGE_API_KEY_SECRET', 'IMAGE_API_TRANSFORM_KEY', 'IMAGE_API_TRANSFORM_SALT']);

function options() {
  const { configSchema, validateConfig } = require(path.join(CONFIG, 'schema'));
  const { OPTION_VARIABLES } = require(path.join(CONFIG, 'environment'));
  const defaults = validateConfig({});
  const row = (name, described, value) => ({
    name,
    description: described.flags?.description ?? '',
    value,
    variable: OPTION_VARIABLES[name]?.variable ?? null,
    list: OPTION_VARIABLES[name]?.reading === 'list',
  });
  // An object option (`purge`) is a row of its own, then a row per key (`purge.varnish`).
  return Object.entries(configSchema.describe().keys).flatMap(([name, described]) =>
    described.type === 'object' && described.keys
      ? [row(name, described, undefined), ...Object.entries(described.keys).map(([key, inner]) => row(`${name}.${key}`, inner, defaults[name][key]))]
      : [row(name, described, defaults[name])]
  );
}

const asCode = (value) => (value === undefined ? '' : `\`${JSON.stringify(value).replace(/"/g, "'")}\``);
const cell = (text) => text.replace(/\|/g, '\\|');

function table(all) {
  const rows = all.map(({ name, description, value, variable }) => `| \`${name}\` | ${variable ? `\`${variable}\`` : ''} | ${asCode(value)} | ${cell(description)} |`);
  return ['| option | variable | default | |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

function envLines(all) {
  const out = [];
  for (const { description, value, variable, list } of all) {
    if (!variable || ELSEWHERE_IN_ENV_EXAMPLE.has(variable)) continue;
    const shown = value === null ? '' : list ? value.join(',') : String(value);
    out.push(`# ${description}`, `# ${variable}=${shown}`);
  }
  return out.join('\n');
}

/** `text` with what stands between the two markers replaced by `inner`. */
function between(text, start, end, inner, file) {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) throw new Error(`${file}: the markers ${start} … ${end} are missing`);
  return `${text.slice(0, from + start.length)}\n${inner}\n${text.slice(to)}`;
}

/** What both files should hold: [[file, text], ...]. */
function expected() {
  const all = options();
  return [
    [DOC, between(fs.readFileSync(DOC, 'utf8'), '<!-- options:start (npm run docs:options) -->', '<!-- options:end -->', table(all), DOC)],
    [ENV_EXAMPLE, between(fs.readFileSync(ENV_EXAMPLE, 'utf8'), '# --- options:start (npm run docs:options) ---', '# --- options:end ---', envLines(all), ENV_EXAMPLE)],
  ];
}

/** The files that differ from what the schema says. */
const stale = () => expected().filter(([file, text]) => fs.readFileSync(file, 'utf8') !== text).map(([file]) => path.relative(APP_DIR, file));

module.exports = { options, stale };

if (require.main === module) {
  if (process.argv.includes('--write')) {
    for (const [file, text] of expected()) fs.writeFileSync(file, text);
  } else {
    const files = stale();
    if (files.length) {
      process.stderr.write(`not what the plugin's options say: ${files.join(', ')} (run npm run docs:options)\n`);
      process.exit(1);
    }
  }
}
