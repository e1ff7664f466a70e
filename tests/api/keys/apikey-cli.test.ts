/** The apikey CLI against the configured database, with the server running and without; the bootstrap key. */
import { execFile } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { promisify } from 'util';
import { startApp, APP_DIR, type TestApp } from '../../helpers/app';
import { createScratchDb } from '../../../tools/support/app/scratch-db';
import { png } from '../../helpers/fixtures';

// Each CLI call boots Strapi in a process of its own (5 s or more with another test file beside it):
// a test of several calls needs longer than the project's 60 s.
jest.setTimeout(240_000);

const run = promisify(execFile);
const cli = (args: string[], env: Record<string, string | undefined> = process.env) =>
  run('node', [path.join(APP_DIR, 'scripts/apikey.js'), 'keys', ...args], { cwd: APP_DIR, env, timeout: 60_000 });

describe('with the server running', () => {
  let app: TestApp;
  const BOOTSTRAP = 'img_BootstrapKeyForTests0123456789ab';
  beforeAll(async () => {
    app = await startApp({ IMAGE_API_BOOTSTRAP_KEY: BOOTSTRAP });
  });
  afterAll(async () => {
    await app?.stop();
  });

  test('create prints the key alone on its last line, and the running server accepts it', async () => {
    const { stdout } = await cli(['create', '--name', 'ShareX on Bob laptop', '--description', 'screenshots for the wiki']);
    const lines = stdout.trimEnd().split('\n');
    const key = lines[lines.length - 1];
    expect(key).toMatch(/^img_[A-Za-z0-9]{32}$/);

    const res = await app.upload(key, await png(20, 20));
    expect(res.status).toBe(200);

    const row = await app.strapi.db.query('plugin::image-api.api-key').findOne({ where: { name: 'ShareX on Bob laptop' } });
    expect(row.description).toBe('screenshots for the wiki');
    expect(row.key_prefix).toBe(key.slice(0, 8));
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the plugin's own bin (npx strapi-image-api keys ...) does the same in the app's folder", async () => {
    const bin = path.join(APP_DIR, 'plugins/image-api/bin/strapi-image-api.js');
    const { stdout } = await run('node', [bin, 'keys', 'create', '--name', 'from the bin'], { cwd: APP_DIR, env: process.env, timeout: 90_000 });
    const key = stdout.trimEnd().split('\n').pop()!;
    expect(key).toMatch(/^img_[A-Za-z0-9]{32}$/);
    expect((await app.upload(key, await png(20, 20))).status).toBe(200);
    await expect(run('node', [bin, 'tokens', 'list'], { cwd: APP_DIR, env: process.env })).rejects.toThrow(/^ {2}node plugins\/image-api\/bin\/strapi-image-api\.js keys create --name NAME/m);
  });

  test('list --json shows names, prefixes, state and usage, never a key or hash', async () => {
    const { stdout } = await cli(['list', '--json']);
    const list = JSON.parse(stdout);
    const entry = list.find((k: any) => k.name === 'ShareX on Bob laptop');
    expect(entry).toMatchObject({
      prefix: expect.stringMatching(/^img_/),
      active: true,
      expiresAt: null,
      lastUsedAt: expect.stringMatching(/^\d{4}-/),
      uploadCount: 1,
      owner: null,
      description: 'screenshots for the wiki',
    });
    expect(stdout).not.toMatch(/img_[A-Za-z0-9]{32}/);
    expect(stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  test('revoke makes the next upload answer 403', async () => {
    const { stdout } = await cli(['create', '--name', 'to revoke']);
    const key = stdout.trim().split('\n').pop()!;
    await cli(['revoke', 'to revoke']);
    const res = await app.upload(key, await png(20, 20));
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ message: 'API key revoked', code: 100 });
    const { stdout: listed } = await cli(['list', '--json']);
    expect(JSON.parse(listed).find((k: any) => k.name === 'to revoke').active).toBe(false);
  });

  test('create with an owner, a rate limit and an expiry', async () => {
    const { adminToken } = await import('../../helpers/admin');
    await adminToken(app, 'owner@img.test');
    const { stdout } = await cli(['create', '--name', 'owned', '--owner', 'owner@img.test', '--rate-limit', '1/minute', '--expires', '30d']);
    const key = stdout.trim().split('\n').pop()!;
    const { stdout: listed } = await cli(['list', '--json']);
    const entry = JSON.parse(listed).find((k: any) => k.name === 'owned');
    expect(entry.owner).toBe('owner@img.test');
    expect(entry.rateLimit).toBe('1/minute');
    const days = (new Date(entry.expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    app.strapi.config.set('plugin::image-api.rateLimit', 'off');
    const first = await app.upload(key, await png(20, 20));
    expect(first.status).toBe(200);
    expect((await app.upload(key, await png(20, 20))).status).toBe(429);
  });

  test('create with duplicates and quotas (as the Content Manager sets them): the server applies them', async () => {
    const { stdout } = await cli(['create', '--name', 'capped', '--duplicates', 'reuse', '--quota-images', '2', '--quota-bytes', '5GB']);
    const key = stdout.trim().split('\n').pop()!;
    const row = await app.strapi.db.connection('image_api_keys').where('name', 'capped').first('duplicates', 'quota_images', 'quota_bytes');
    expect([row.duplicates, Number(row.quota_images), Number(row.quota_bytes)]).toEqual(['reuse', 2, 5_000_000_000]);
    const bytes = await png(21, 21);
    const first = (await app.upload(key, bytes)).body.image;
    expect((await app.upload(key, bytes)).body.image.id_encoded).toBe(first.id_encoded);
    expect((await app.upload(key, await png(22, 22))).status).toBe(200);
    const third = await app.upload(key, await png(23, 23));
    expect([third.status, third.body.error.code]).toEqual([403, 105]);
    const { stdout: listed } = await cli(['list', '--json']);
    expect(JSON.parse(listed).find((k: any) => k.name === 'capped')).toMatchObject({
      duplicates: 'reuse', quotaImages: 2, quotaBytes: 5_000_000_000, liveImages: 2, liveBytes: expect.any(Number),
    });
    await expect(cli(['create', '--name', 'y', '--duplicates', 'merge'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--duplicates: store, reuse or refuse/) });
    await expect(cli(['create', '--name', 'y', '--quota-images', '0'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--quota-images: a whole number from 1/) });
    await expect(cli(['create', '--name', 'y', '--quota-bytes', 'lots'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--quota-bytes: a size like 500MB/) });
  });

  test("create --moderation and --moderation-threshold set the key's moderation (docs/moderation.md); list shows them; bad values refused", async () => {
    await cli(['create', '--name', 'moderated', '--moderation', 'hold', '--moderation-threshold', '0.65']);
    const row = await app.strapi.db.connection('image_api_keys').where('name', 'moderated').first('moderation', 'moderation_threshold');
    expect([row.moderation, Number(row.moderation_threshold)]).toEqual(['hold', 0.65]);
    const { stdout: listed } = await cli(['list', '--json']);
    expect(JSON.parse(listed).find((k: any) => k.name === 'moderated')).toMatchObject({ moderation: 'hold', moderationThreshold: 0.65 });
    expect(JSON.parse(listed).find((k: any) => k.name === 'capped')).toMatchObject({ moderation: null, moderationThreshold: null });
    await expect(cli(['create', '--name', 'z', '--moderation', 'ban'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--moderation: off, flag, hold or refuse, not ban/) });
    await expect(cli(['create', '--name', 'z', '--moderation-threshold', '1.5'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--moderation-threshold: a number from 0 to 1, not 1.5/) });
  });

  test('regenerate prints a new key; the old one stops working', async () => {
    const { stdout } = await cli(['create', '--name', 'rotating']);
    const old = stdout.trim().split('\n').pop()!;
    const { stdout: regenerated } = await cli(['regenerate', 'rotating']);
    const fresh = regenerated.trim().split('\n').pop()!;
    expect(fresh).toMatch(/^img_[A-Za-z0-9]{32}$/);
    expect(fresh).not.toBe(old);
    expect((await app.upload(old, await png(20, 20))).status).toBe(401);
    expect((await app.upload(fresh, await png(20, 20))).status).toBe(200);
  });

  test('errors: duplicate name, unknown name, bad usage', async () => {
    await expect(cli(['create', '--name', 'x', '--rate-limit', '5/week'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--rate-limit/) });
    await expect(cli(['create', '--name', 'x', '--expires', 'soon'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--expires/) });
    await expect(cli(['create', '--name', 'x', '--owner', 'nobody@img.test'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/no admin user/) });
    await expect(cli(['regenerate', 'nobody'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/no key named/) });
    await expect(cli(['create', '--name', 'ShareX on Bob laptop'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/exists already/) });
    await expect(cli(['revoke', 'nobody'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/no key named/) });
    await expect(cli(['frobnicate'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/usage/) });
    // A key that would be expired at birth is refused; an unknown option shows the usage.
    await expect(cli(['create', '--name', 'x', '--expires', '0d'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/--expires: 0d is not in the future/) });
    await expect(cli(['create', '--name', 'x', '--expires', '2020-01-01'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/not in the future/) });
    await expect(cli(['create', '--bogus'])).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/Unknown option '--bogus'[\s\S]*usage:/) });
  });

  test('--help prints the usage on stdout and succeeds, for the script and the packaged bin', async () => {
    const { stdout } = await cli(['--help']);
    expect(stdout).toMatch(/^usage:\n  node scripts\/apikey\.js keys create --name NAME/);
    const bin = path.join(APP_DIR, 'plugins/image-api/bin/strapi-image-api.js');
    for (const args of [['--help'], ['keys', 'create', '-h']]) {
      const { stdout: usage } = await run('node', [bin, ...args], { cwd: APP_DIR, env: process.env, timeout: 30_000 });
      expect(usage).toMatch(/^usage:/);
    }
  });

  test('one way to call it, `keys <command>`, through npx or npm run; the usage is spelled the way it was called', async () => {
    const env = { ...process.env, npm_command: undefined, npm_lifecycle_event: undefined, npm_lifecycle_script: undefined };
    const npmRun = (...args: string[]) => run('npm', ['run', '--silent', 'apikey', '--', ...args], { cwd: APP_DIR, env, timeout: 90_000 });
    const listed = JSON.parse((await npmRun('keys', 'list', '--json')).stdout);
    expect(listed.map((k: { name: string }) => k.name)).toContain('ShareX on Bob laptop');
    // The words without `keys` are refused, with the usage as it can be typed back.
    const refused = await npmRun('list').then(() => null, (error) => error);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^usage:\n  npm run --silent apikey -- keys create --name NAME/);
    expect(refused.stderr).toMatch(/^ {2}npm run --silent apikey -- keys list \[--json\]$/m);
    const { stdout: npxUsage } = await run('npx', ['--no-install', 'strapi-image-api', '--help'], { cwd: APP_DIR, env, timeout: 60_000 });
    expect(npxUsage).toMatch(/^usage:\n  npx strapi-image-api keys create --name NAME/);
    expect(npxUsage).toMatch(/^ {2}npx strapi-image-api keys client-config sharex\|picgo\|curl NAME/m);
  });

  test('IMAGE_API_BOOTSTRAP_KEY exists at boot and works', async () => {
    const res = await app.upload(BOOTSTRAP, await png(20, 20));
    expect(res.status).toBe(200);
    const rows = await app.strapi.db.query('plugin::image-api.api-key').findMany({ where: { description: 'IMAGE_API_BOOTSTRAP_KEY' } });
    expect(rows).toHaveLength(1);
  });

  test('the bootstrap key made sure of by several instances at once: one entry, and none of them fails', async () => {
    const key = 'img_RaceBootstrapKey0123456789abcdefgh';
    const keys = app.strapi.plugin('image-api').service('api-keys');
    // The four lookups run before any insert: all but one insert meet the unique index on key_hash.
    await expect(Promise.all(Array.from({ length: 4 }, () => keys.ensureBootstrapKey(key)))).resolves.toHaveLength(4);
    const rows = await app.strapi.db.query('plugin::image-api.api-key').findMany({ where: { key_prefix: 'img_Race' } });
    expect(rows).toHaveLength(1);
    const res = await app.upload(key, await png(20, 20));
    expect(res.status).toBe(200);
  });
});

test('with no server running, on a fresh database; the command starts none of a server\'s background work, a server always does', async () => {
  const db = await createScratchDb();
  // A request folder a crash left two hours ago: a serving instance's boot sweep removes it.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apikey-cli-tmp-'));
  const debris = path.join(tmp, 'req-left-by-a-crash');
  fs.mkdirSync(debris);
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  fs.utimesSync(debris, twoHoursAgo, twoHoursAgo);
  try {
    const env = { ...process.env, ...db.env, LOG_LEVEL: 'error', IMAGE_API_TMP_DIR: tmp };
    // A key that classifies: a server's boot would load the classifier's model (moderation.warm).
    const { stdout } = await cli(['create', '--name', 'offline', '--moderation', 'flag'], env);
    expect(stdout.trim().split('\n').pop()).toMatch(/^img_/);
    const listed = await cli(['list', '--json'], env);
    expect(JSON.parse(listed.stdout).map((k: any) => k.name)).toEqual(['offline']);
    // Neither command swept (server/src/bootstrap.ts: nor did it start the classifier, the purges, the backfills).
    expect(fs.existsSync(debris)).toBe(true);
    // The same database and folder under a server: the boot sweep takes the folder, even with the
    // environment variable that once marked the CLI's process (an environment is inherited and
    // copied: a server that read it there ran no sweeps at all).
    const server = await startApp({ ...db.env, IMAGE_API_TMP_DIR: tmp, IMAGE_API_ONE_COMMAND: '1' });
    await server.stop();
    expect(fs.existsSync(debris)).toBe(false);
  } finally {
    await db.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
