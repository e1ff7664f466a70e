'use strict';
/**
 * The key commands (bin/strapi-image-api.js), against the app's configured database: the server
 * may be running or not. Everything but the requested output goes to stderr. Keys are checked by
 * the plugin itself (its api-keys service and the key entry's lifecycles), as when an admin saves
 * an entry.
 */
const { parseArgs } = require('util');
const bytes = require('bytes-iec');

/**
 * The usage, spelled as the CLI was called (`program`: `npx strapi-image-api`, or this repository's
 * `npm run --silent apikey --`), so what it shows can be typed back as it is.
 */
const usage = (program) => `usage:
  ${program} keys create --name NAME [--description TEXT] [--contact TEXT] [--owner ADMIN_EMAIL]
                [--rate-limit SPEC] [--expires DATE|Nd]
                [--duplicates store|reuse|refuse] [--quota-images N] [--quota-bytes SIZE]
                [--moderation off|flag|hold|refuse] [--moderation-threshold 0..1]
      SPEC: like 100/minute,2000/day, or off.  --expires: an ISO date (2027-01-31) or a number of days (90d)
      --duplicates: what an upload of bytes the key stored before does (store: again, the default;
        reuse: answers the earlier image; refuse: 409).  --quota-images, --quota-bytes: caps on the
        key's live images (SIZE: bytes, or 500MB, 5GB; GiB for powers of 1024)
      --moderation: what an upload scored past the threshold does (off: not classified; flag; hold
        until approved; refuse: 422); --moderation-threshold: the NSFW score it acts at. Either left
        out: the plugin's moderation option (docs/moderation.md)
  ${program} keys list [--json]
  ${program} keys revoke NAME
  ${program} keys regenerate NAME
  ${program} keys client-config sharex|picgo|curl NAME   (ShareX .sxcu, PicGo/PicList web-uploader JSON, a curl script)`;

/** A refusal worth one line on stderr and exit code 1 (no stack trace). */
class CliError extends Error {}

/** `--help` (or `-h`): the usage on stdout, exit code 0. */
class HelpAsked extends Error {}

/** The key entry's fields, as the CLI's options name them (for the plugin's validation errors). */
const OPTION_OF_FIELD = {
  rate_limit: '--rate-limit',
  name: '--name',
  expires_at: '--expires',
  duplicates: '--duplicates',
  quota_images: '--quota-images',
  quota_bytes: '--quota-bytes',
  moderation: '--moderation',
  moderation_threshold: '--moderation-threshold',
};

const DUPLICATES = ['store', 'reuse', 'refuse'];
const MODERATION = ['off', 'flag', 'hold', 'refuse'];

function readArgs(argv, program) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      description: { type: 'string' },
      contact: { type: 'string' },
      owner: { type: 'string' },
      'rate-limit': { type: 'string' },
      expires: { type: 'string' },
      duplicates: { type: 'string' },
      'quota-images': { type: 'string' },
      'quota-bytes': { type: 'string' },
      moderation: { type: 'string' },
      'moderation-threshold': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) throw new HelpAsked();
  const [command] = positionals;
  if (!['create', 'list', 'revoke', 'regenerate', 'client-config'].includes(command)) throw new CliError(usage(program));
  // client-config KIND NAME; the others: COMMAND NAME.
  const [kind, name] = command === 'client-config' ? positionals.slice(1) : [null, positionals[1]];
  if (command === 'client-config' && !['sharex', 'picgo', 'curl'].includes(kind)) throw new CliError('client-config needs sharex, picgo or curl, then the key name');
  if (command === 'client-config' && !name) throw new CliError('client-config needs the key name');
  if (command === 'create' && !values.name) throw new CliError('create needs --name NAME');
  if ((command === 'revoke' || command === 'regenerate') && !name) throw new CliError(`${command} needs the key name`);
  if (values.duplicates !== undefined && !DUPLICATES.includes(values.duplicates)) {
    throw new CliError(`--duplicates: store, reuse or refuse, not ${values.duplicates}`);
  }
  if (values.moderation !== undefined && !MODERATION.includes(values.moderation)) {
    throw new CliError(`--moderation: off, flag, hold or refuse, not ${values.moderation}`);
  }
  return {
    command,
    kind,
    name,
    values,
    expiresAt: parseExpiry(values.expires),
    quotaImages: parseCount('--quota-images', values['quota-images']),
    quotaBytes: parseSize(values['quota-bytes']),
    moderationThreshold: parseThreshold(values['moderation-threshold']),
  };
}

/** A score from 0 to 1. */
function parseThreshold(text) {
  if (text === undefined) return null;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) throw new CliError(`--moderation-threshold: a number from 0 to 1, not ${text}`);
  return value;
}

/** A whole number from 1. */
function parseCount(option, text) {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new CliError(`${option}: a whole number from 1, not ${text}`);
  return Number(text);
}

/** Bytes, or a size with a unit: 500MB and 5GB are powers of 1000 (as the API writes sizes), 5GiB of 1024. */
function parseSize(text) {
  if (text === undefined) return null;
  const parsed = bytes.parse(text);
  if (parsed === null || !Number.isSafeInteger(parsed) || parsed < 1) throw new CliError(`--quota-bytes: a size like 500MB or 5GB, not ${text}`);
  return parsed;
}

/** An ISO date or "<n>d" days from now. */
function parseExpiry(text) {
  if (text === undefined) return null;
  const days = /^(\d+)d$/.exec(text);
  const date = days ? new Date(Date.now() + Number(days[1]) * 86_400_000) : new Date(text);
  if (Number.isNaN(date.getTime())) throw new CliError(`--expires: not a date or a number of days: ${text}`);
  // A key that would be expired when made is a mistake (0d, a date gone by), not a request.
  if (date.getTime() <= Date.now()) throw new CliError(`--expires: ${text} is not in the future`);
  return date;
}

/** The plugin's refusal of a field, named as the option that set it. */
function asCliError(error) {
  const [first] = error?.details?.errors ?? [];
  const option = first && OPTION_OF_FIELD[first.path?.[0]];
  return option ? new CliError(`${option}: ${first.message}`) : error;
}

/**
 * Runs `work` with the app's logs held back: Strapi's logger writes to stdout at the app's level (an
 * app made by create-strapi-app logs its whole boot), and the command's own output must be alone
 * there (`> image-api.sxcu`, `| jq`), and alone in the terminal. The logs go to stderr only when
 * `work` fails (they may say why), or as they come with STRAPI_IMAGE_API_VERBOSE=1. The commands'
 * own notes go to stderr directly, and are not held.
 */
async function holdLogs(work) {
  const write = process.stdout.write;
  const held = [];
  process.stdout.write = process.env.STRAPI_IMAGE_API_VERBOSE === '1'
    ? process.stderr.write.bind(process.stderr)
    : (chunk, encoding, callback) => {
        held.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        const done = typeof encoding === 'function' ? encoding : callback;
        if (done) done();
        return true;
      };
  try {
    return await work();
  } catch (error) {
    process.stdout.write = write;
    if (held.length > 0) process.stderr.write(held.join(''));
    throw error;
  } finally {
    process.stdout.write = write;
  }
}

/** Boots the app without its server, runs `work` with the key service (and the plugin), and always shuts it down. */
async function withKeys({ appDir, distDir }, work) {
  process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'error';
  // One command, then exit: the plugin starts none of a serving instance's background work (its
  // sweeps, backfills, the classifier's model: server/src/bootstrap.ts). Marked on this process, not
  // in its environment, which a server could inherit (server/src/operations/one-command.ts).
  require('../dist/server/src/operations/one-command').markOneCommand();
  const { createStrapi } = require(require.resolve('@strapi/strapi', { paths: [appDir] }));
  const strapi = await createStrapi({ appDir, distDir }).load();
  try {
    return await work(strapi.plugin('image-api').service('api-keys'), strapi.plugin('image-api'));
  } finally {
    await strapi.destroy();
  }
}

const COMMANDS = {
  async create(keys, { values, expiresAt, quotaImages, quotaBytes, moderationThreshold }) {
    if (await keys.findByName(values.name)) throw new CliError(`a key named "${values.name}" exists already`);
    const { entry, key } = await keys
      .create({
        name: values.name,
        description: values.description ?? null,
        contact: values.contact ?? null,
        ownerEmail: values.owner ?? null,
        rateLimit: values['rate-limit'] ?? null,
        expiresAt,
        duplicates: values.duplicates ?? 'store',
        quotaImages,
        quotaBytes,
        moderation: values.moderation ?? null,
        moderationThreshold,
      })
      .catch((error) => {
        throw asCliError(error);
      });
    process.stderr.write(`created key "${entry.name}" (${entry.key_prefix}…); keep it safe (an admin can reveal it again in the panel):\n`);
    return key;
  },

  async list(keys, { values }) {
    const list = (await keys.list()).map((k) => ({
      name: k.name,
      prefix: k.key_prefix,
      active: k.active,
      expiresAt: k.expires_at ?? null,
      lastUsedAt: k.last_used_at ?? null,
      uploadCount: Number(k.upload_count ?? 0),
      owner: k.owner?.email ?? null,
      rateLimit: k.rate_limit ?? null,
      duplicates: k.duplicates ?? 'store',
      quotaImages: k.quota_images ?? null,
      quotaBytes: k.quota_bytes == null ? null : Number(k.quota_bytes),
      moderation: k.moderation ?? null,
      moderationThreshold: k.moderation_threshold == null ? null : Number(k.moderation_threshold),
      liveImages: Number(k.live_images ?? 0),
      liveBytes: Number(k.live_bytes ?? 0),
      description: k.description,
      createdAt: k.createdAt,
    }));
    if (values.json) return JSON.stringify(list, null, 2);
    return list
      .map((k) => `${k.active ? 'active ' : 'revoked'}  ${k.prefix}…  ${String(k.uploadCount).padStart(6)} uploads  ${k.name}`)
      .join('\n');
  },

  async regenerate(keys, { name }) {
    const key = await keys.regenerate({ name });
    if (!key) throw new CliError(`no key named "${name}"`);
    process.stderr.write(`new key for "${name}"; the old one no longer works:\n`);
    return key;
  },

  async 'client-config'(keys, { kind, name }, plugin) {
    const entry = await keys.findByName(name);
    if (!entry) throw new CliError(`no key named "${name}"`);
    const config = await plugin.service('client-configs').forEntry(kind, entry.documentId);
    if (!config) throw new CliError(`the key of "${name}" cannot be revealed (no encrypted copy)`);
    process.stderr.write(`${kind} configuration for "${name}" (save it as ${config.filename}); it holds the key:\n`);
    return config.body.replace(/\n$/, '');
  },

  async revoke(keys, { name }) {
    if (!(await keys.revoke(name))) throw new CliError(`no key named "${name}"`);
    process.stderr.write(`revoked "${name}"\n`);
    return null;
  },
};

/**
 * Runs one key command (`argv`: what follows `keys`) in the app at `appDir`, booted from `distDir`
 * (its compiled code: `dist` for a TypeScript app, the app itself for a JavaScript one). Resolves
 * with the exit code; prints the output.
 */
async function runKeys(argv, { appDir, distDir, program }) {
  let args;
  try {
    args = readArgs(argv, program);
  } catch (error) {
    if (error instanceof HelpAsked) {
      process.stdout.write(`${usage(program)}\n`);
      return 0;
    }
    // Our own refusals say what to fix; parseArgs' (an unknown option, a missing value) come with the usage.
    process.stderr.write(error instanceof CliError ? `${error.message}\n` : `strapi-image-api: ${error.message}\n${usage(program)}\n`);
    return 1;
  }
  try {
    const output = await holdLogs(() => withKeys({ appDir, distDir }, (keys, plugin) => COMMANDS[args.command](keys, args, plugin)));
    if (output !== null && output !== '') process.stdout.write(`${output}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(error instanceof CliError ? `${error.message}\n` : `strapi-image-api: ${error.message}\n`);
    return 1;
  }
}

/**
 * The command line after the program's name: `keys <command> [options]`, or `--help`. Resolves with
 * the exit code. `boot`: where the app's compiled code is, asked only once a key command is given.
 */
async function main(argv, { program, appDir, boot }) {
  const [group, ...rest] = argv;
  if (group === '--help' || group === '-h') {
    process.stdout.write(`${usage(program)}\n`);
    return 0;
  }
  if (group !== 'keys') {
    process.stderr.write(`${usage(program)}\n`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${usage(program)}\n`);
    return 0;
  }
  return runKeys(rest, { appDir, distDir: await boot(), program });
}

module.exports = { main, holdLogs };
