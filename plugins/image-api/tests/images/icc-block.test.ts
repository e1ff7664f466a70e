/** A HEIC's ICC profile in the JPEG it is stored as: APP2 segments a reader puts back together. */
import sharp from 'sharp';
import { fitsInJpeg, withIccBlock } from '../../server/src/images/icc-block';
import { profileOf } from '../../server/src/images/decoders/heic-colour';

const jpeg = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#5ec550' } }).jpeg().toBuffer();

test("libvips' Display P3 profile tags the JPEG: P3 numbers shown as P3", async () => {
  const p3 = (await profileOf({ nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } }))!;
  expect(p3.toString('latin1', 36, 40)).toBe('acsp');
  const tagged = withIccBlock(await jpeg(), p3);
  expect((await sharp(tagged).metadata()).icc?.equals(p3)).toBe(true);
  // (94,197,80) in Display P3 is sRGB's (28,200,58).
  const [r, g, b] = await sharp(tagged).raw().toBuffer();
  expect([r, g, b].map((v, i) => Math.abs(v - [28, 200, 58][i]) <= 4)).toEqual([true, true, true]);
});

test('a profile larger than a segment is split across several, in order', async () => {
  const p3 = (await profileOf({ nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } }))!;
  // The profile with 150 kB of padding after its tags (its declared size too): three segments.
  const large = Buffer.concat([p3, Buffer.alloc(150_000)]);
  large.writeUInt32BE(large.length, 0);
  const tagged = withIccBlock(await jpeg(), large);
  const segments = [...tagged.keys()].filter((at) => tagged[at] === 0xff && tagged[at + 1] === 0xe2 && tagged.toString('latin1', at + 4, at + 15) === 'ICC_PROFILE');
  expect(segments.map((at) => [tagged[at + 16], tagged[at + 17]])).toEqual([[1, 3], [2, 3], [3, 3]]);
  expect((await sharp(tagged).metadata()).icc?.equals(large)).toBe(true);
});

test('what cannot be carried is not: an empty profile, or one past 255 segments', async () => {
  const bytes = await jpeg();
  expect(fitsInJpeg(Buffer.alloc(0))).toBe(false);
  expect(fitsInJpeg(Buffer.alloc(255 * 65519 + 1))).toBe(false);
  expect(withIccBlock(bytes, Buffer.alloc(0))).toBe(bytes);
});

test('nclx other than Display P3 is left as sRGB; an ICC profile is the file\'s own', async () => {
  expect(await profileOf({ nclx: { primaries: 1, transfer: 13, matrix: 6, fullRange: true } })).toBeNull();
  expect(await profileOf({ nclx: { primaries: 9, transfer: 16, matrix: 9, fullRange: false } })).toBeNull();
  expect(await profileOf(null)).toBeNull();
  const own = (await profileOf({ nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } }))!;
  expect(await profileOf({ icc: own })).toBe(own);
});

test('an ICC profile that is not one for RGB pixels is not carried (lcms would refuse it too)', async () => {
  const p3 = (await profileOf({ nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } }))!;
  const cmyk = Buffer.from(p3);
  cmyk.write('CMYK', 16, 'latin1');
  const lying = Buffer.from(p3);
  lying.writeUInt32BE(p3.length + 1, 0);
  for (const icc of [Buffer.alloc(500, 7), Buffer.from('garbage'), cmyk, lying, p3.subarray(0, 100)]) expect(await profileOf({ icc })).toBeNull();
});
