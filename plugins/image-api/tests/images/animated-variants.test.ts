/**
 * The APNG test that keeps an APNG's width (images/animated-variants.ts): the frames its `acTL` chunk
 * declares, read by walking the chunks, and hostile files (lying lengths, cut short, the chunk after
 * the image data) answered without an exception or a walk that does not move.
 */
import sharp from 'sharp';
import { apngFrames } from '../../server/src/images/animated-variants';
import { apng, pngChunk } from '../../../../tests/helpers/animation';

const still = () => sharp({ create: { width: 8, height: 4, channels: 3, background: '#123456' } }).png().toBuffer();
const actl = (frames: number) => {
  const data = Buffer.alloc(8);
  data.writeUInt32BE(frames, 0);
  return pngChunk('acTL', data);
};
/** The PNG with `chunk` inserted after IHDR (8 + 25 bytes). */
const withChunk = (png: Buffer, chunk: Buffer, at = 33) => Buffer.concat([png.subarray(0, at), chunk, png.subarray(at)]);

test('an APNG: the frames its acTL declares; a still PNG, or not a PNG: 1', async () => {
  expect(apngFrames(await apng(40, 20))).toBe(2);
  expect(apngFrames(withChunk(await still(), actl(300)))).toBe(300);
  expect(apngFrames(await still())).toBe(1);
  expect(apngFrames(Buffer.from('GIF89a'))).toBe(1);
  expect(apngFrames(Buffer.alloc(0))).toBe(1);
});

test('hostile chunks: an acTL after the image data, of 0 frames, cut short, or behind a length past the end, counts 1', async () => {
  const png = await still();
  const iend = png.length - 12;
  expect(apngFrames(withChunk(png, actl(5), iend))).toBe(1);
  expect(apngFrames(withChunk(png, actl(0)))).toBe(1);
  expect(apngFrames(withChunk(png, actl(5)).subarray(0, 40))).toBe(1);
  const lying = Buffer.from(withChunk(png, actl(5)));
  // IHDR's length says 4 GB.
  lying.writeUInt32BE(0xffffffff, 8);
  expect(apngFrames(lying)).toBe(1);
});

test('a file of many empty chunks is walked in one pass (every step moves 12 bytes or more)', () => {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const empty = pngChunk('tEXt', Buffer.alloc(0));
  const file = Buffer.concat([signature, ...Array.from({ length: 500_000 }, () => empty), actl(7)]);
  // Not linear, this would take minutes: past the suite's time limit.
  expect(apngFrames(file)).toBe(7);
});
