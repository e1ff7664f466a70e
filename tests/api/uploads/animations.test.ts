/**
 * Animations stay alive (docs/api.md, "The image object"): an animated GIF or WebP keeps its frames,
 * their delays and its loop count in the original, `.md` and `.th` (in the original's format), and
 * through `width`; the JSON's sizes are a frame's. The stored files are read from disk and walked
 * here (tests/helpers/animation.ts), not asked of sharp. An APNG keeps its frames by keeping its width.
 */
import fs from 'fs';
import path from 'path';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { apng, readAnimation, type Animation } from '../../helpers/animation';
import { expectServedFiles, expectUploadJson } from '../../helpers/image-json';
import { animatedGif } from '../../../tools/support/images/gif';
import { animatedWebp } from '../../../tools/support/images/webp';

const app = useApp();

const upload = (bytes: Buffer, filename: string, fields: Record<string, string | number> = {}) => app.upload(app.key, bytes, { filename, fields });
const stored = (variant: { filename: string }) => fs.readFileSync(path.join(app.uploadsDir, variant.filename));

/** 12 frames of three delays in turn, played three times more. */
const DELAYS_MS = [40, 80, 120];
const make = {
  gif: (width: number, height: number) => animatedGif({ width, height, frames: 12, distinct: 6, delaysCs: DELAYS_MS.map((ms) => ms / 10), loops: 3 }),
  webp: (width: number, height: number) => animatedWebp({ width, height, frames: 12, distinct: 6, delaysMs: DELAYS_MS, loops: 3 }),
};
/** The frames, delays and loops every stored file must keep; the canvas is each file's own. */
const timing = ({ frames, delaysMs, loops }: Animation) => ({ frames, delaysMs, loops });

describe.each(['gif', 'webp'] as const)('an animated %s', (format) => {
  const mime = `image/${format}`;

  test('keeps every frame, its delays and its loop count in the original, .md and .th; the JSON gives a frame’s size', async () => {
    const bytes = await make[format](640, 320);
    const source = readAnimation(bytes);
    expect(timing(source)).toEqual({ frames: 12, delaysMs: [...DELAYS_MS, ...DELAYS_MS, ...DELAYS_MS, ...DELAYS_MS], loops: 3 });

    const res = await upload(bytes, `anim.${format}`);
    expect(res.status).toBe(200);
    const image = expectUploadJson(res.body, { extension: format, mime });
    expect([image.width, image.height, image.medium.width, image.medium.height, image.thumb.width, image.thumb.height]).toEqual([640, 320, 500, 250, 160, 160]);
    await expectServedFiles(app, image);

    const original = stored(image);
    expect(original.equals(bytes)).toBe(true);
    for (const [variant, size] of [[image.medium, [500, 250]], [image.thumb, [160, 160]]] as const) {
      const file = stored(variant);
      expect(file.length).toBe(variant.size);
      const animation = readAnimation(file);
      expect([animation.format, animation.width, animation.height]).toEqual([format, ...size]);
      expect(timing(animation)).toEqual(timing(source));
    }
    // Variants are 8 bits a channel, whatever the GIF's palette size.
    expect([image.medium.bits, image.thumb.bits]).toEqual([8, 8]);
    // A GIF's variants, of fewer pixels, are no bigger than it: frames of flat colours are sampled
    // rather than resampled when resampling would make them bigger (a WebP's: left open).
    if (format === 'gif') expect(Math.max(image.medium.size, image.thumb.size)).toBeLessThanOrEqual(image.size);
  });

  test('.th is a centre crop of every frame: each frame of it is the matching frame of the original, cropped', async () => {
    const bytes = await make[format](320, 160);
    const image = (await upload(bytes, `crop.${format}`)).body.image;
    const thumb = stored(image.thumb);
    expect(readAnimation(thumb).frames).toBe(12);
    // Frame 1 of the thumb against frame 1 of the original, cropped to its centre square and scaled (not frame 0).
    const frame = (file: Buffer, page: number) => sharp(file, { page }).removeAlpha();
    const expected = await frame(bytes, 1).extract({ left: 80, top: 0, width: 160, height: 160 }).raw().toBuffer();
    const other = await frame(bytes, 0).extract({ left: 80, top: 0, width: 160, height: 160 }).raw().toBuffer();
    const actual = await frame(thumb, 1).raw().toBuffer();
    const distance = (a: Buffer, b: Buffer) => a.reduce((sum, value, i) => sum + Math.abs(value - b[i]), 0) / a.length;
    expect(distance(actual, expected)).toBeLessThan(12);
    expect(distance(actual, other)).toBeGreaterThan(2 * distance(actual, expected));
  });

  test('narrower than the medium: .md is the original’s bytes (its frames as they are); .th is scaled up, every frame', async () => {
    const bytes = await make[format](120, 90);
    const image = (await upload(bytes, `small.${format}`)).body.image;
    expect([image.medium.width, image.medium.height, image.thumb.width, image.thumb.height]).toEqual([120, 90, 160, 160]);
    expect(stored(image.medium).equals(bytes)).toBe(true);
    expect(timing(readAnimation(stored(image.thumb)))).toEqual(timing(readAnimation(bytes)));
  });

  test('width= resizes every frame of the original, delays and loop kept; the variants follow from it', async () => {
    const bytes = await make[format](640, 320);
    const res = await upload(bytes, `narrow.${format}`, { width: 300 });
    expect(res.status).toBe(200);
    const image = expectUploadJson(res.body, { extension: format, mime });
    expect([image.width, image.height, image.medium.width, image.medium.height]).toEqual([300, 150, 300, 150]);
    await expectServedFiles(app, image);
    const original = readAnimation(stored(image));
    expect([original.width, original.height]).toEqual([300, 150]);
    expect(timing(original)).toEqual(timing(readAnimation(bytes)));
    // The medium is as wide as the resized original: its bytes.
    expect(stored(image.medium).equals(stored(image))).toBe(true);
    expect(timing(readAnimation(stored(image.thumb)))).toEqual(timing(original));
  });
});

test('a GIF shown once (no loop block) stays shown once in every file', async () => {
  const bytes = animatedGif({ width: 600, height: 200, frames: 4, loops: null });
  expect(readAnimation(bytes).loops).toBeNull();
  const image = (await upload(bytes, 'once.gif', { width: 550 })).body.image;
  for (const file of [stored(image), stored(image.medium), stored(image.thumb)]) expect(timing(readAnimation(file))).toEqual({ frames: 4, delaysMs: [40, 40, 40, 40], loops: null });
});

test('an APNG with width= keeps its width, so that it keeps its frames (libvips reads only the first); its variants are stills', async () => {
  const bytes = await apng(400, 200);
  const res = await upload(bytes, 'moving.png', { width: 100 });
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
  expect([image.width, image.height, image.medium.width, image.medium.height]).toEqual([400, 200, 400, 200]);
  expect(stored(image).equals(bytes)).toBe(true);
  const medium = stored(image.medium);
  expect(medium.includes(Buffer.from('acTL'))).toBe(false);
  // The first frame: red.
  expect([...(await sharp(medium).raw().toBuffer()).subarray(0, 3)]).toEqual([255, 0, 0]);
});
