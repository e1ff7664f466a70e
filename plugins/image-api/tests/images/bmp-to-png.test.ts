import decodeBmp from 'decode-bmp';
import sharp from 'sharp';
import { bmpToPng } from '../../server/src/images/decoders/bmp-to-png';
import { bmp, bmpOfDepth as bmpOf } from '../../../../tests/helpers/fixtures';
import { refusal } from '../refusal';

/** The pixels as decode-bmp reads the whole file (RGB, or RGBA for 32-bit). */
function expectedPixels(file: Buffer, channels: 3 | 4): Buffer {
  const { data } = decodeBmp(file);
  if (channels === 4) return Buffer.from(data);
  const rgb = Buffer.alloc((data.length / 4) * 3);
  for (let i = 0, j = 0; i < data.length; i += 4, j += 3) rgb.set(data.subarray(i, i + 3), j);
  return rgb;
}

/** A 4-bit BMP whose header declares 3 colours: indices past them read as black. */
function shortPalette(): Buffer {
  const file = bmpOf(64, 9, 4);
  file.writeUInt32LE(3, 46);
  return file;
}

test.each([
  ['1-bit, width not a multiple of 32, three bands', bmpOf(1001, 700, 1), 3],
  ['4-bit palette', bmpOf(333, 41, 4), 3],
  ['8-bit palette', bmpOf(257, 1030, 8), 3],
  ['4-bit, a palette of 3 colours', shortPalette(), 3],
  ['24-bit', bmp(97, 61), 3],
  ['32-bit: its alpha kept', bmpOf(120, 90, 32), 4],
] as const)('%s: the same pixels as decode-bmp reads from the whole file', async (_label, file, channels) => {
  const png = await bmpToPng(file);
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height, info.channels]).toEqual([file.readInt32LE(18), file.readInt32LE(22), channels]);
  expect(Buffer.compare(data, expectedPixels(file, channels))).toBe(0);
});

test('a BMP cut short, or stored top-down (negative height): 400/311', async () => {
  const whole = bmpOf(64, 64, 8);
  expect(await refusal(bmpToPng(whole.subarray(0, whole.length - 10)))).toMatchObject({ status: 400, code: 311 });
  const topDown = Buffer.from(whole);
  topDown.writeInt32LE(-64, 22);
  expect(await refusal(bmpToPng(topDown))).toMatchObject({ status: 400, code: 311 });
});

test.each([1, 4, 8] as const)('a %i-bit BMP becomes a palette PNG of that depth, the size of the BMP (as RGB, a 1-bit one was 1.8 times it)', async (depth) => {
  const file = bmpOf(2048, 300, depth);
  const png = await bmpToPng(file);
  // IHDR: bit depth, colour type 3 (palette).
  expect([png[24], png[25]]).toEqual([depth, 3]);
  expect(await sharp(png).metadata()).toMatchObject({ isPalette: true, width: 2048, height: 300 });
  // The rows' bytes, a filter byte each, and deflate's few bytes for what it cannot shrink.
  expect(png.length).toBeLessThanOrEqual(file.length + 300 + 1024);
});
