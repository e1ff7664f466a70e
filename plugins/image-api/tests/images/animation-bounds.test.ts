import sharp from 'sharp';
import { boundPassed, checkBounds, countFrames, type ImageLimits } from '../../server/src/images/animation-bounds';
import { animated } from '../../../../tests/helpers/fixtures';
import { animatedGif } from '../../../../tools/support/images/gif';
import { animatedWebp } from '../../../../tools/support/images/webp';

const LIMITS: ImageLimits = { maxPixels: 100_000_000, maxAnimationFrames: 500, maxAnimationPixels: 20_000_000 };

/** The refusal `run` throws, as a client would see it. */
function refusalOf(run: () => void): { status: number; code: number; message: string } | null {
  try {
    run();
    return null;
  } catch (error) {
    const { status, code, message } = error as { status: number; code: number; message: string };
    return { status, code, message };
  }
}

describe('countFrames: from the container, as libvips counts them', () => {
  test.each([
    ['sharp\'s GIF (local colour tables, a loop block)', () => animated(30, 20, 7), 7],
    ['a GIF of 1,000 frames', async () => animatedGif({ width: 3, height: 2, frames: 1000 }), 1000],
    ['a still GIF', () => sharp({ create: { width: 4, height: 4, channels: 3, background: '#123' } }).gif().toBuffer(), 1],
    ['sharp\'s animated WebP', () => animated(30, 20, 5, 'webp'), 5],
    ['a WebP of 600 frames', () => animatedWebp({ width: 4, height: 4, frames: 600 }), 600],
    ['a still WebP', () => sharp({ create: { width: 4, height: 4, channels: 3, background: '#123' } }).webp().toBuffer(), 1],
  ] as const)('%s', async (_label, make, frames) => {
    const bytes = await make();
    const type = bytes.toString('latin1', 0, 3) === 'GIF' ? 'gif' : 'webp';
    expect(countFrames(bytes, type, 10_000)).toBe(frames);
    expect((await sharp(bytes).metadata()).pages ?? 1).toBe(frames);
  });

  test('stops one frame past the bound: a file of 100,000 frames costs what 11 do', async () => {
    expect(countFrames(animatedGif({ width: 1, height: 1, frames: 100_000, colorBits: 1 }), 'gif', 10)).toBe(11);
    expect(countFrames(await animatedWebp({ width: 2, height: 2, frames: 600 }), 'webp', 10)).toBe(11);
  });

  test('a GIF cut short, or garbage after its header, counts what can be read', () => {
    const gif = animatedGif({ width: 8, height: 8, frames: 5 });
    expect(countFrames(gif.subarray(0, 900), 'gif', 100)).toBeLessThanOrEqual(5);
    expect(countFrames(Buffer.from('GIF89a'), 'gif', 100)).toBe(1);
    const junk = Buffer.concat([gif.subarray(0, 13 + 768), Buffer.from([0x99, 0x2c, 0x2c])]);
    expect(countFrames(junk, 'gif', 100)).toBe(1);
  });
});

describe('checkBounds: 413/315 naming the bound passed', () => {
  test('a still image: its pixels only', () => {
    expect(refusalOf(() => checkBounds({ width: 10_000, height: 10_000, pages: 1 }, LIMITS))).toBeNull();
    expect(refusalOf(() => checkBounds({ width: 10_001, height: 10_000, pages: 1 }, LIMITS))).toEqual({
      status: 413, code: 315, message: 'Image too large - max 100 megapixels',
    });
  });
  test('an animation: each frame, the frames, all their pixels', () => {
    expect(refusalOf(() => checkBounds({ width: 200, height: 200, pages: 500 }, LIMITS))).toBeNull();
    expect(refusalOf(() => checkBounds({ width: 2, height: 2, pages: 501 }, LIMITS))).toEqual({
      status: 413, code: 315, message: 'Animation too long - max 500 frames',
    });
    expect(refusalOf(() => checkBounds({ width: 200, height: 201, pages: 500 }, LIMITS))).toEqual({
      status: 413, code: 315, message: 'Animation too large - max 20 megapixels in all its frames',
    });
    expect(refusalOf(() => checkBounds({ width: 20_000, height: 10_000, pages: 2 }, LIMITS))).toMatchObject({ message: 'Image too large - max 100 megapixels' });
  });
});

test('boundPassed: the bound an animation of these frames passes (an upload\'s, a transformation\'s result), or null', () => {
  expect(boundPassed({ width: 200, height: 200, pages: 500 }, LIMITS)).toBeNull();
  expect(boundPassed({ width: 200, height: 201, pages: 500 }, LIMITS)).toBe('pixels');
  expect(boundPassed({ width: 1, height: 1, pages: 501 }, LIMITS)).toBe('frames');
  expect(boundPassed({ width: 3000, height: 2000, pages: 8 }, LIMITS)).toBe('pixels');
});
