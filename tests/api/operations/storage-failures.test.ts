/**
 * An upload that fails after its files were written: they are removed again, and when the storage
 * will not let them go, the journal row that names them stays until a sweep really removes them.
 * Faults are injected into the upload provider and the database lifecycles of this in-process app.
 */
import fs from 'fs';
import path from 'path';
import { useApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';

const PENDING = 'plugin::image-api.pending-upload';
let image: Buffer;

const app = useApp({ IMAGE_API_SWEEP_AFTER_MS: '0' });
beforeAll(async () => {
  image = await png(64, 48);
});

const upload = (filename = 'a.png') => app.upload(app.key, image, { filename });
const uploads = () => fs.readdirSync(app.uploadsDir).sort();
const pendingRows = () => app.strapi.db.query(PENDING).findMany();
const provider = () => app.strapi.plugin('upload').provider as Record<string, (...args: any[]) => Promise<unknown>>;

/** Replaces a provider method for the duration of `run`. */
async function withProvider(method: 'upload' | 'delete', replacement: (original: any) => (...args: any[]) => Promise<unknown>, run: () => Promise<void>) {
  const original = provider()[method];
  provider()[method] = replacement(original.bind(provider()));
  try {
    await run();
  } finally {
    provider()[method] = original;
  }
}

/** Makes the database refuse the image record of the next uploads while `run` runs. */
async function withRecordFailure(run: (attempts: () => number) => Promise<void>, model = 'plugin::image-api.image') {
  let attempts = 0;
  const unsubscribe = app.strapi.db.lifecycles.subscribe({
    models: [model],
    beforeCreate() {
      attempts++;
      throw new Error(attempts === 1 ? 'first failure' : `failure number ${attempts}`);
    },
  });
  try {
    await run(() => attempts);
  } finally {
    unsubscribe();
  }
}

afterEach(async () => {
  // Each test starts from a clean slate: nothing on disk, no journal rows.
  await app.strapi.plugin('image-api').service('debris-sweep').run();
  expect(uploads()).toEqual([]);
  expect(await pendingRows()).toEqual([]);
});

test('a full disk: 507, and no file is left, not even one whose write failed half-way', async () => {
  await withProvider(
    'upload',
    (original) => async (file: { hash: string; ext: string; buffer?: Buffer }) => {
      if (!file.hash.endsWith('.md')) return original(file);
      // A disk that fills up in the middle of the medium's write.
      fs.writeFileSync(path.join(app.uploadsDir, `${file.hash}${file.ext}`), file.buffer!.subarray(0, 10));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
    async () => {
      const res = await upload();
      expect(res.status).toBe(507);
      expect(res.body).toEqual({ status_code: 507, error: { message: 'Insufficient storage', code: 507 }, status_txt: 'Insufficient Storage' });
      expect(uploads()).toEqual([]);
      expect(await pendingRows()).toEqual([]);
    }
  );
});

test('when the storage refuses to delete, the journal row stays; the next sweep removes files and row', async () => {
  await withProvider(
    'delete',
    () => async () => {
      throw new Error('storage unavailable');
    },
    async () => {
      await withRecordFailure(async () => {
        expect((await upload('kept.png')).status).toBe(500);
      });
      const [row] = await pendingRows();
      expect(row.files.map((f: { hash: string }) => f.hash)).toEqual([row.name, `${row.name}.th`, `${row.name}.md`]);
      expect(uploads()).toEqual([`${row.name}.md.png`, `${row.name}.png`, `${row.name}.th.png`]);

      // A sweep while the storage still refuses keeps the row too.
      expect(await app.strapi.plugin('image-api').service('debris-sweep').run()).toEqual({ uploads: 0, tempFolders: 0, idempotencyKeys: 0 });
      expect(await pendingRows()).toHaveLength(1);
    }
  );
  // Storage back: the sweep (afterEach) removes the three files and the row.
});

test('the record is not retried when its folder is still there, and the first error is the one logged', async () => {
  const logged: string[] = [];
  const error = jest.spyOn(app.strapi.log, 'error').mockImplementation((message: unknown) => {
    logged.push(String(message));
    return app.strapi.log;
  });
  try {
    await withRecordFailure(async (attempts) => {
      expect((await upload()).status).toBe(500);
      expect(attempts()).toBe(1);
    }, 'plugin::upload.file');
  } finally {
    error.mockRestore();
  }
  expect(logged.join('\n')).toMatch(/first failure/);
});
