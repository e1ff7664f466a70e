/**
 * The uploads folder on a 20 MB tmpfs that fills up under a load of 12 MP uploads: each upload is
 * complete or absent (no truncated original, no empty variant), the client gets 507 "Insufficient
 * storage", and uploads work again as soon as space is freed. Needs root for the mount; elsewhere
 * the provider-level ENOSPC case of tests/api/operations/storage-failures.test.ts covers the same code.
 */
import { execFileSync } from 'child_process';
import type { Knex } from 'knex';
import { photo12mp } from './helpers/photo';
import { startFaultApp, type FaultApp } from './helpers/fault-app';
import { CLEAN, leftovers, openDb, tally, uploadFile, type Answer } from './helpers/load';
import { startPostgres } from '../../tools/support/servers/postgres';

const KEY = 'img_faults_disk_0123456789abcdef0123';
const asRoot = process.getuid?.() === 0;
let pg: Awaited<ReturnType<typeof startPostgres>>;
let app: FaultApp;
let db: Knex;
let mounted: string | null = null;
let photo: Buffer;

(asRoot ? describe : describe.skip)('a full disk', () => {
  beforeAll(async () => {
    pg = await startPostgres();
    photo = await photo12mp();
    app = await startFaultApp({ ...pg.env, IMAGE_API_BOOTSTRAP_KEY: KEY }, (uploadsDir) => {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', uploadsDir]);
      mounted = uploadsDir;
    });
    db = openDb(pg.env);
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await app?.stop();
    if (mounted) execFileSync('umount', [mounted]);
    await app?.destroy();
    await pg?.destroy();
  });

  const upload = () => uploadFile(app.url, KEY, photo, { name: 'big.jpg', timeoutMs: 60_000 });

  test('12 MP uploads until the disk is full: 200s, then 507s; nothing partial left; uploads work again once space is freed', async () => {
    console.log(`12 MP original: ${(photo.length / 1e6).toFixed(1)} MB, tmpfs 20 MB`);
    const answers: Answer[] = [];
    // Two at a time, until a few have been refused.
    while (answers.filter((a) => a.status === 507).length < 4 && answers.length < 20) {
      answers.push(...(await Promise.all([upload(), upload()])));
    }
    console.log(`full disk: answers ${JSON.stringify(tally(answers))}`);
    expect(Object.keys(tally(answers)).sort()).toEqual(['200', '507']);
    for (const refused of answers.filter((a) => a.status === 507)) {
      expect(refused.body).toEqual({ status_code: 507, error: { message: 'Insufficient storage', code: 507 }, status_txt: 'Insufficient Storage' });
    }
    const accepted = answers.filter((a) => a.status === 200);
    const left = await leftovers(db, app.uploadsDir, app.tmpDir);
    expect(left).toMatchObject(CLEAN);
    expect(left.images).toBe(accepted.length);
    // Every accepted original is there, whole.
    for (const { body } of accepted) {
      const res = await fetch(body.image.url);
      expect(Buffer.from(await res.arrayBuffer()).equals(photo)).toBe(true);
    }

    // Space back: delete two images with their delete links; the next upload goes through.
    for (const { body } of accepted.slice(0, 2)) expect((await fetch(body.image.delete_url, { method: 'DELETE' })).status).toBe(200);
    const again = await upload();
    expect(again.status).toBe(200);
    expect(await leftovers(db, app.uploadsDir, app.tmpDir)).toMatchObject({ ...CLEAN, images: accepted.length - 1 });
  }, 180_000);
});
