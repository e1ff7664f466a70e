/**
 * docs/adding-the-plugin.md ("Add the plugin to an existing Strapi 5 app"), step by step, as an adopter follows it:
 * the plugin packed with `npm pack`, a fresh app made by create-strapi-app 5.54.0 (TypeScript,
 * SQLite), the package installed from the tarball, the guide's config entry merged into the file
 * the app came with, the guide's `.env` lines, a production build and start, a key issued with the
 * packaged CLI, an upload. The config entry, the `.env` lines and the CLI command are read from the
 * guide itself, so the guide and this test cannot drift apart.
 *
 * Installs go through npm's cache (`--prefer-offline`), as CI's own install does; the app's server
 * only ever talks to loopback (telemetry off). create-strapi-app's defaults otherwise: SQLite in
 * .tmp/data.db once the guide's line fixes the empty DATABASE_FILENAME that naming `--dbclient`
 * without `--dbfile` writes.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import request from 'supertest';
import { png } from '../helpers/fixtures';
import { signedPath, transformSecrets } from '../helpers/imgproxy';
import { freePort } from '../../tools/support/servers/ports';

const ROOT = path.join(__dirname, '..', '..');
const PLUGIN_DIR = path.join(ROOT, 'plugins', 'image-api');
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs', 'adding-the-plugin.md'), 'utf8');
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-adopter-'));
const APP = path.join(WORK, 'app');
const SECRET = 'adopter-test-secret-0123456789abcdef';
const { key: TRANSFORM_KEY, salt: TRANSFORM_SALT } = transformSecrets();

/** Child processes' environment: npm from its cache, no telemetry, nothing of this repository's own .env. */
const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  STRAPI_TELEMETRY_DISABLED: 'true',
  // How this machine reaches the registry (its CA), and, on another Node line (.ci/node-line), npm's
  // global config kept and native modules built against that line's headers.
  ...Object.fromEntries(
    ['NODE_EXTRA_CA_CERTS', 'npm_config_globalconfig', 'npm_config_nodedir'].filter((name) => process.env[name]).map((name) => [name, process.env[name]])
  ),
};

let url: string;
let server: ChildProcess | undefined;
let serverLog = '';

/** The guide this test follows, whole. */
const SECTION = GUIDE;
/** The lines of the section's fenced blocks in one language. */
const block = (language: string) => {
  const blocks = [...SECTION.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]);
  if (blocks.length === 0) throw new Error(`docs/adding-the-plugin.md: no ${language} block`);
  return blocks.join('\n').split('\n').map((line) => line.trim()).filter(Boolean);
};

function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): string {
  return execFileSync(command, args, { cwd, env: { ...ENV, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(async () => {
  // 1. The package, as `npm pack` makes it (prepack builds it).
  const packed = run('npm', ['pack', '--pack-destination', WORK, '--json'], PLUGIN_DIR);
  const tarball = path.join(WORK, JSON.parse(packed.slice(packed.indexOf('[')))[0].filename);
  expect(fs.existsSync(tarball)).toBe(true);

  // A fresh app, as create-strapi-app makes it, with its dependencies.
  run(path.join(ROOT, 'node_modules', '.bin', 'create-strapi-app'), [
    'app', '--no-run', '--skip-cloud', '--typescript', '--use-npm', '--no-example', '--no-git-init',
    '--install', '--non-interactive', '--dbclient', 'sqlite',
  ], WORK);
  // As a newcomer made it: SQLite named, its file not, so DATABASE_FILENAME is empty (the guide's
  // first lines say so, and its dotenv block below gives the line that fixes it).
  expect(fs.readFileSync(path.join(APP, '.env'), 'utf8')).toMatch(/^DATABASE_FILENAME=$/m);
  run('npm', ['install', tarball], APP);
  // The guide's line for Node 24.19+ and 26 (the SQLite driver create-strapi-app pins aborts there).
  if (Number(process.versions.node.split('.')[0]) >= 24) {
    const driver = block('sh').find((line) => line.startsWith('npm install better-sqlite3@'))!;
    run('npm', driver.split(' ').slice(1), APP);
  }

  // 2. The guide's entry, merged into the object the app's config/plugins.ts returns.
  const entry = block('ts').find((line) => line.startsWith("'image-api'"))!;
  const pluginsFile = path.join(APP, 'config', 'plugins.ts');
  const original = fs.readFileSync(pluginsFile, 'utf8');
  expect(original).toMatch(/=> \(\{\n/);
  fs.writeFileSync(pluginsFile, original.replace(/=> \(\{\n/, (opening) => `${opening}  ${entry}\n`));
  // The guide's line for Strapi's CORS, in place of the template's.
  const cors = block('ts').find((line) => line.startsWith("{ name: 'strapi::cors'"))!;
  const middlewaresFile = path.join(APP, 'config', 'middlewares.ts');
  const middlewares = fs.readFileSync(middlewaresFile, 'utf8');
  expect(middlewares).toContain("  'strapi::cors',\n");
  fs.writeFileSync(middlewaresFile, middlewares.replace("'strapi::cors',", cors));

  // The guide's SQLite settings: its import atop config/database.ts, its pool in the sqlite entry.
  const sqliteImport = block('ts').find((line) => line.startsWith('import { sqlitePool }'))!;
  const sqlitePoolLine = block('ts').find((line) => line.startsWith('pool: sqlitePool()'))!;
  const databaseFile = path.join(APP, 'config', 'database.ts');
  const database = fs.readFileSync(databaseFile, 'utf8');
  const sqliteEntryEnd = '      useNullAsDefault: true,\n    },\n  };';
  expect(database).toContain(sqliteEntryEnd);
  fs.writeFileSync(databaseFile, `${sqliteImport}\n${database.replace(sqliteEntryEnd, sqliteEntryEnd.replace('true,\n', `true,\n      ${sqlitePoolLine}\n`))}`);

  // 3. The guide's .env lines, with this test's values.
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const values: Record<string, string> = { IMAGE_API_KEY_SECRET: SECRET, IMAGE_API_TRANSFORM_KEY: TRANSFORM_KEY, IMAGE_API_TRANSFORM_SALT: TRANSFORM_SALT, PUBLIC_URL: url };
  // The guide's lines as they are, but for the values this test chooses.
  const lines = block('dotenv').map((line) => {
    const name = line.split('=')[0];
    return name in values ? `${name}=${values[name]}` : line;
  });
  fs.appendFileSync(path.join(APP, '.env'), `\n${lines.join('\n')}\nHOST=127.0.0.1\nPORT=${port}\n`);

  // 4. Build and start in production mode.
  run('npm', ['run', 'build'], APP, { NODE_ENV: 'production' });
  server = spawn('npm', ['run', 'start'], { cwd: APP, env: { ...ENV, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  server.stdout!.on('data', (chunk) => (serverLog += chunk));
  server.stderr!.on('data', (chunk) => (serverLog += chunk));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const up = await request(url).get('/_health').then((res) => res.status, () => 0);
    if (up === 204 || up === 200) break;
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the app did not start:\n${serverLog}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}, 1_200_000);

afterAll(async () => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* gone already */
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  fs.rmSync(WORK, { recursive: true, force: true });
});

test('the fresh app keeps its own plugin settings next to the entry, and boots without a warning about the secret', () => {
  const plugins = fs.readFileSync(path.join(APP, 'config', 'plugins.ts'), 'utf8');
  expect(plugins).toContain("'users-permissions': {");
  expect(plugins).toContain('allowedTypes: allowedMediaTypes');
  expect(plugins).toContain("'image-api': { enabled: true },");
  expect(serverLog).not.toMatch(/IMAGE_API_KEY_SECRET .* is not set/);
  expect(serverLog).not.toMatch(/IMAGE_API_TRANSFORM_KEY and IMAGE_API_TRANSFORM_SALT are not set/);
  expect(serverLog).not.toMatch(/\berror\b/i);
});

let key: string;

test("the packaged CLI issues a key, as the guide's command does", () => {
  const create = block('sh').find((line) => line.startsWith('npx strapi-image-api keys create'))!;
  const name = create.match(/--name "([^"]+)"/)![1];
  // stdout holds the key alone; the app's boot logs (create-strapi-app's app logs at `http`) are held
  // back, so the terminal shows the key and nothing else.
  const created = spawnSync('npx', ['strapi-image-api', 'keys', 'create', '--name', name], { cwd: APP, env: ENV, encoding: 'utf8' });
  // On stderr, the command's own note and nothing of the app's boot (npm's own warnings about this
  // machine's npmrc aside).
  const said = created.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm warn'));
  expect([created.status, said]).toEqual([0, [expect.stringMatching(/^created key "ShareX on Bob's laptop" \(img_\w{4}…\); keep it safe/)]]);
  expect(created.stdout).toMatch(/^img_[A-Za-z0-9]{32}\n$/);
  key = created.stdout.trim();
  const list = run('npx', ['strapi-image-api', 'keys', 'list', '--json'], APP);
  expect(JSON.parse(list)).toEqual([expect.objectContaining({ name, active: true, uploadCount: 0 })]);
  const sxcu = JSON.parse(run('npx', ['strapi-image-api', 'keys', 'client-config', 'sharex', name], APP));
  expect(sxcu).toMatchObject({ Headers: { 'X-API-Key': key }, RequestURL: `${url}/api/1/upload` });
});

test('an upload with that key is stored in the app: original and both variants on disk, the viewer serves it', async () => {
  const image = await png(800, 600);
  const res = await request(url).post('/api/1/upload').field('key', key).field('title', 'Adopted').attach('source', image, 'cat.png');
  expect(res.status).toBe(200);
  expect(res.body.image).toMatchObject({ title: 'Adopted', width: 800, height: 600, extension: 'png' });
  for (const variant of [res.body.image, res.body.image.thumb, res.body.image.medium]) {
    const file = path.join(APP, 'public', new URL(variant.url).pathname);
    expect([variant.url, fs.existsSync(file)]).toEqual([variant.url, true]);
  }
  expect(fs.readFileSync(path.join(APP, 'public', new URL(res.body.image.url).pathname)).equals(image)).toBe(true);
  const viewer = await request(url).get(new URL(res.body.image.url_viewer).pathname);
  expect(viewer.status).toBe(200);
  expect(viewer.text).toContain('Adopted');

  // Served: a preset unsigned, any other size signed with the guide's key and salt.
  const preset = await request(url).get(`/img/_/pr:small/plain/${res.body.image.url}@webp`);
  expect([preset.status, preset.headers['content-type'], preset.headers['cache-control']]).toEqual([200, 'image/webp', 'public, max-age=2592000, immutable']);
  const rest = `/w:120/plain/${res.body.image.url}@png`;
  expect((await request(url).get(`/img/_${rest}`)).status).toBe(403);
  const signed = await request(url).get(signedPath(TRANSFORM_KEY, TRANSFORM_SALT, rest));
  expect([signed.status, signed.headers['content-type']]).toEqual([200, 'image/png']);
});

test("the app's SQLite database runs in WAL mode, as the guide's pool settings make it", () => {
  // better-sqlite3 from the app's own dependencies, read-only beside the running server.
  const Database = require(require.resolve('better-sqlite3', { paths: [APP] })) as new (file: string, options: { readonly: boolean }) => { pragma(sql: string, options: { simple: boolean }): unknown; close(): void };
  const file = path.join(APP, '.tmp', 'data.db');
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  } finally {
    db.close();
  }
  expect(fs.existsSync(`${file}-wal`)).toBe(true);
});

test('the admin panel: the Image API page is built in, the Content Manager views and the usage routes answer', async () => {
  const api = request(url);
  const register = await api
    .post('/admin/register-admin')
    .send({ firstname: 'Ada', lastname: 'Adopter', email: 'ada@adopter.test', password: 'Adopter-pass-1234' });
  expect(register.status).toBe(200);
  const auth = { Authorization: `Bearer ${register.body.data.token}` };

  // The guide's CORS line: the admin's routes answer the app's own origin, no other.
  const corsFor = async (origin: string) => (await api.options('/admin/access-token').set('Origin', origin).set('Access-Control-Request-Method', 'POST')).headers['access-control-allow-origin'];
  expect([await corsFor('https://evil.example'), await corsFor(url)]).toEqual([undefined, url]);

  const overview = await api.get('/image-api/usage/overview').set(auth);
  expect(overview.status).toBe(200);
  expect(overview.body.data.totals).toMatchObject({ images: 1, uploadsInWindow: 1 });
  const configuration = await api.get('/content-manager/content-types/plugin::image-api.api-key/configuration').set(auth);
  expect(configuration.body.data.contentType.layouts.list).toEqual(['name', 'active', 'key_prefix', 'key_last4', 'expires_at', 'last_used_at', 'upload_count', 'live_images']);

  // The built admin holds the plugin's page.
  const built = path.join(APP, 'dist', 'build');
  const bundles = fs.readdirSync(built, { recursive: true }) as string[];
  const holdsPage = bundles.some((file) => file.endsWith('.js') && fs.readFileSync(path.join(built, file), 'utf8').includes('image-api-usage-chart'));
  expect(holdsPage).toBe(true);
  expect((await api.get('/admin/plugins/image-api')).status).toBe(200);
});
