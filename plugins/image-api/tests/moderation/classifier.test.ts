/**
 * The classifier's worker (moderation/classifier.ts, classifier-worker.ts) with the real model, from
 * the built plugin (`npm test` builds it first): answers, in order, to concurrent jobs; a worker that
 * takes too long is stopped and the next job gets a new one; a worker that cannot start fails its
 * jobs, and the caller is told.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import sharp from 'sharp';
import { createClassifier } from '../../server/src/moderation/classifier';

const WORKER = path.join(__dirname, '../../dist/server/src/moderation/classifier-worker.js');

const squareOf = (bytes: Buffer) => sharp(bytes).resize(224, 224, { fit: 'fill' }).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
const photo = () => fs.readFileSync(path.join(path.dirname(require.resolve('create-strapi-app/package.json')), 'templates/example/data/uploads/beautiful-picture.jpg'));
const top = (scores: object) => Object.entries(scores as Record<string, number>).sort((a, b) => b[1] - a[1])[0][0];

test('the built worker exists (the plugin is built before the unit suite)', () => {
  expect(fs.existsSync(WORKER)).toBe(true);
});

test('concurrent jobs are each answered: five probabilities that sum to 1', async () => {
  const classifier = createClassifier(WORKER);
  try {
    expect(classifier.loaded()).toBe(false);
    const pixels = await squareOf(photo());
    const answers = await Promise.all([1, 2, 3, 4].map(() => classifier.classify(pixels)));
    expect(classifier.loaded()).toBe(true);
    for (const scores of answers) {
      expect(Object.keys(scores).sort()).toEqual(['drawing', 'hentai', 'neutral', 'porn', 'sexy']);
      expect(Object.values(scores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
      expect(top(scores)).toBe('neutral');
      // The same pixels, the same scores.
      expect(scores).toEqual(answers[0]);
    }
    // Pixels of another size are refused, and the worker goes on.
    await expect(classifier.classify(Buffer.alloc(10))).rejects.toThrow('expected 224×224 RGB pixels, got 10 bytes');
    expect(top(await classifier.classify(pixels))).toBe('neutral');
  } finally {
    await classifier.stop();
  }
}, 120_000);

test('a classification past its time limit stops the worker; the next job starts a new one', async () => {
  // A limit no load can meet: the job fails, the worker is stopped.
  const hasty = createClassifier(WORKER, { classifyMs: 1, loadMs: 0 });
  const pixels = await squareOf(photo());
  try {
    await expect(hasty.classify(pixels)).rejects.toThrow('the classifier took longer than 1 ms');
    expect(hasty.loaded()).toBe(false);
    await expect(hasty.classify(pixels)).rejects.toThrow('took longer');
  } finally {
    await hasty.stop();
  }
});

test('a worker that cannot start fails its job with the reason', async () => {
  const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'classifier-')), 'worker.js');
  fs.writeFileSync(broken, 'throw new Error("no model here");');
  const classifier = createClassifier(broken);
  try {
    await expect(classifier.classify(Buffer.alloc(224 * 224 * 3))).rejects.toThrow("the classifier's worker failed: no model here");
  } finally {
    await classifier.stop();
    fs.rmSync(path.dirname(broken), { recursive: true, force: true });
  }
});
