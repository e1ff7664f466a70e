#!/usr/bin/env node
/**
 * API keys from the command line, against the configured database (the server may be running or not):
 *   npm run --silent apikey -- create --name NAME [--description TEXT] [--contact TEXT]
 *                                     [--owner EMAIL] [--rate-limit SPEC] [--expires DATE|Nd]
 *                                     prints the key alone on its last line
 *   npm run --silent apikey -- list [--json]
 *   npm run --silent apikey -- revoke NAME
 *   npm run --silent apikey -- regenerate NAME   prints the new key alone on its last line
 * Everything but the requested output goes to stderr.
 */
'use strict';

const path = require('path');
const { parseArgs } = require('util');
const { APP_DIR, ensureBuilt } = require('./ensure-built');
const USAGE = `usage:
  apikey create --name NAME [--description TEXT] [--contact TEXT] [--owner ADMIN_EMAIL]
                [--rate-limit SPEC] [--expires DATE|Nd]
      SPEC: like 100/minute,2000/day, or off.  --expires: an ISO date (2027-01-31) or a number of days (90d)
  apikey list [--json]
  apikey revoke NAME
  apikey regenerate NAME`;

/** An ISO date or "<n>d" days from now. */
function parseExpiry(text) {
  if (text === undefined) return null;
  const days = /^(\d+)d$/.exec(text);
  const date = days ? new Date(Date.now() + Number(days[1]) * 86_400_000) : new Date(text);
  if (Number.isNaN(date.getTime())) fail(`--expires: not a date or a number of days: ${text}`);
  return date;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function withStrapi(run) {
  process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'error';
  const { createStrapi } = require('@strapi/strapi');
  const strapi = await createStrapi({ appDir: APP_DIR, distDir: path.join(APP_DIR, 'dist') }).load();
  try {
    return await run(strapi.plugin('image-api').service('api-keys'));
  } finally {
    await strapi.destroy();
  }
}

async function main() {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      description: { type: 'string' },
      contact: { type: 'string' },
      owner: { type: 'string' },
      'rate-limit': { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [command, arg] = positionals;
  if (!['create', 'list', 'revoke', 'regenerate'].includes(command)) fail(USAGE);
  if (command === 'create' && !values.name) fail('create needs --name NAME');
  if ((command === 'revoke' || command === 'regenerate') && !arg) fail(`${command} needs the key name`);
  const expiresAt = parseExpiry(values.expires);

  await ensureBuilt();
  if (values['rate-limit'] !== undefined) {
    const { parseRateLimit } = require('../plugins/image-api/dist/server/services/rate-limits');
    try {
      parseRateLimit(values['rate-limit']);
    } catch (error) {
      fail(`--rate-limit: ${error.message}`);
    }
  }
  const output = await withStrapi(async (keys) => {
    if (command === 'create') {
      if ((await keys.list()).some((k) => k.name === values.name)) fail(`a key named "${values.name}" exists already`);
      const { entry, key } = await keys.create({
        name: values.name,
        description: values.description ?? null,
        contact: values.contact ?? null,
        ownerEmail: values.owner ?? null,
        rateLimit: values['rate-limit'] ?? null,
        expiresAt,
      });
      process.stderr.write(`created key "${entry.name}" (${entry.key_prefix}…); it is shown once:\n`);
      return key;
    }
    if (command === 'list') {
      const list = (await keys.list()).map((k) => ({
        name: k.name,
        prefix: k.key_prefix,
        active: k.active,
        expiresAt: k.expires_at ?? null,
        lastUsedAt: k.last_used_at ?? null,
        uploadCount: Number(k.upload_count ?? 0),
        owner: k.owner?.email ?? null,
        rateLimit: k.rate_limit ?? null,
        description: k.description,
        createdAt: k.createdAt,
      }));
      if (values.json) return JSON.stringify(list, null, 2);
      return list
        .map((k) => `${k.active ? 'active ' : 'revoked'}  ${k.prefix}…  ${String(k.uploadCount).padStart(6)} uploads  ${k.name}`)
        .join('\n');
    }
    if (command === 'regenerate') {
      const key = await keys.regenerate({ name: arg });
      if (!key) fail(`no key named "${arg}"`);
      process.stderr.write(`new key for "${arg}"; the old one no longer works; it is shown once:\n`);
      return key;
    }
    if (!(await keys.revoke(arg))) fail(`no key named "${arg}"`);
    process.stderr.write(`revoked "${arg}"\n`);
    return null;
  });
  if (output !== null && output !== '') process.stdout.write(`${output}\n`);
}

main().catch((error) => fail(`apikey: ${error.message}`));
