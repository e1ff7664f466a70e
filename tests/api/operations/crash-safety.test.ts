/**
 * Crash safety: the server is killed (SIGKILL) during a burst of uploads. After a restart (whose
 * boot sweep runs), every upload that was answered 200 is fully served, and no file remains
 * without its record.
 */
import crypto from 'crypto';
import fs from 'fs';
import os from 'os';
import path from 'path';
import request from 'supertest';
import { startChildApp, type ChildApp } from '../../helpers/child-app';
import { inspect } from '../../helpers/db-inspector';
import { createScratchDb, type ScratchDb } from '../../../tools/support/app/scratch-db';
import { png } from '../../helpers/fixtures';
import { binaryParser } from '../../helpers/image-json';

const KEY = 'img_CrashTestKey0123456789abcdefghij';
let db: ScratchDb;
let dir: string;
let env: Record<string, string>;
let app: ChildApp | undefined;

beforeAll(async () => {
  db = await createScratchDb();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-crash-'));
  fs.mkdirSync(path.join(dir, 'public', 'uploads'), { recursive: true });
  env = {
    ...db.env,
    PUBLIC_DIR: path.join(dir, 'public'),
    IMAGE_API_TMP_DIR: path.join(dir, 'tmp'),
    IMAGE_API_BOOTSTRAP_KEY: KEY,
    IMAGE_API_RATE_LIMIT: 'off',
    IMAGE_API_FAILED_AUTH_LIMIT: 'off',
    // One instance: everything unfinished at boot is debris.
    IMAGE_API_SWEEP_AFTER_MS: '0',
    LOG_LEVEL: 'error',
  };
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('after a SIGKILL mid-burst and a restart, answered uploads are whole and nothing is orphaned', async () => {
  app = await startChildApp(env);
  const images = await Promise.all(Array.from({ length: 6 }, (_, i) => png(600 + i * 10, 400)));
  const api = request(app.url);

  // 40 concurrent uploads; kill the server once 8 have been answered.
  const answered: any[] = [];
  let killed: Promise<void> | null = null;
  const uploads = Array.from({ length: 40 }, (_, i) =>
    api
      .post('/api/1/upload')
      .set('X-API-Key', KEY)
      .attach('source', images[i % images.length], `burst-${i}.png`)
      .then((res) => {
        if (res.status === 200) answered.push(res.body.image);
        if (answered.length >= 8 && !killed) killed = app!.kill();
      })
      .catch(() => undefined)
  );
  await Promise.all(uploads);
  await killed;
  expect(answered.length).toBeGreaterThanOrEqual(8);
  expect(answered.length).toBeLessThan(40);

  // Restart on the same database and storage: the boot sweep runs.
  app = await startChildApp(env);
  const again = request(app.url);
  for (const image of answered) {
    const original = await again.get(new URL(image.url).pathname).buffer(true).parse(binaryParser);
    expect(original.status).toBe(200);
    expect(crypto.createHash('md5').update(original.body).digest('hex')).toBe(image.md5);
    for (const variant of [image.thumb, image.medium]) {
      const res = await again.get(new URL(variant.url).pathname).buffer(true).parse(binaryParser);
      expect(res.status).toBe(200);
      expect(res.body.length).toBe(variant.size);
    }
    expect((await again.get(new URL(image.url_viewer).pathname)).status).toBe(200);
  }

  const knex = inspect(db);
  try {
    const names = new Set((await knex('image_api_images').select('name')).map((r: any) => r.name));
    const files = fs.readdirSync(path.join(dir, 'public', 'uploads'));
    const orphans = files.filter((f) => !names.has(f.replace(/(\.th|\.md)?\.[a-z]+$/, '')));
    expect(orphans).toEqual([]);
    expect(files.length).toBe(names.size * 3);
    expect((await knex('image_api_pending_uploads').count({ n: '*' }))[0].n).toBe(db.client === 'postgres' ? '0' : 0);
    expect(Number((await knex('files').count({ n: '*' }))[0].n)).toBe(names.size);
  } finally {
    await knex.destroy();
  }
  const tmp = path.join(dir, 'tmp');
  expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
}, 180_000);
