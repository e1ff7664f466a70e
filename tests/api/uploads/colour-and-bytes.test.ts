/**
 * What a stored image's files hold (docs/api.md, "The image object"): a Display P3 HEIC's colours
 * (ICC profile or nclx) go with its pixels; variants are encoded for the web (never bigger than a
 * source with more pixels); `bits` and `channels` are the stored files' own, read from their bytes.
 */
import sharp, { type Sharp } from 'sharp';
import { useApp } from '../../helpers/app';
import { heic, type HeicColour } from '../../../tools/support/images/heif';
import { binaryParser, expectServedFiles, expectUploadJson } from '../../helpers/image-json';

const app = useApp();

const upload = (bytes: Buffer, filename: string) => app.upload(app.key, bytes, { filename });
const fetchBytes = async (url: string): Promise<Buffer> => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body;

describe('a Display P3 HEIC', () => {
  // Six flat patches (3 × 2 of 300 px) of sRGB colours, the green first; as a phone saves
  // them, their numbers are Display P3's: (28,200,58) is coded (94,197,80).
  const SRGB = [
    [28, 200, 58],
    [220, 40, 40],
    [30, 60, 200],
    [250, 160, 20],
    [128, 128, 128],
    [225, 180, 150],
  ];
  const [WIDTH, HEIGHT, PATCH] = [900, 600, 300];
  const centres = SRGB.map((_, i) => [(i % 3) * PATCH + PATCH / 2, Math.floor(i / 3) * PATCH + PATCH / 2]);

  function patches(): Sharp {
    const patch = (colour: number[]) => ({ create: { width: PATCH, height: PATCH, channels: 3 as const, background: { r: colour[0], g: colour[1], b: colour[2] } } });
    return sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: '#000000' } }).composite(
      SRGB.map((colour, i) => ({ input: patch(colour), left: (i % 3) * PATCH, top: Math.floor(i / 3) * PATCH }))
    );
  }

  /** The mean sRGB colour of a 16×16 block at (x, y): decoded with its embedded profile applied (sharp converts to sRGB). */
  async function srgbAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
    const block = await sharp(bytes).extract({ left: x - 8, top: y - 8, width: 16, height: 16 }).raw().toBuffer();
    return [0, 1, 2].map((c) => Math.round(block.filter((_, i) => i % 3 === c).reduce((sum, v) => sum + v, 0) / 256));
  }

  /** The numbers a file holds at (x, y), with no profile applied. */
  async function numbersAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
    const { data, info } = await sharp(bytes).keepIccProfile().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * info.channels;
    return [data[at], data[at + 1], data[at + 2]];
  }

  const within = (actual: number[], expected: number[], tolerance: number) => actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance);

  let p3Jpeg: Buffer;
  let p3Numbers: Buffer;
  let displayP3: Buffer;
  beforeAll(async () => {
    // The same picture as a P3 JPEG (sharp's built-in Display P3 profile), and its numbers as an untagged PNG for the HEIC's tiles.
    p3Jpeg = await patches().withIccProfile('p3').jpeg({ quality: 95 }).toBuffer();
    displayP3 = (await sharp(p3Jpeg).metadata()).icc!;
    const { data, info } = await sharp(p3Jpeg).keepIccProfile().raw().toBuffer({ resolveWithObject: true });
    p3Numbers = await sharp(data, { raw: info }).png().toBuffer();
  });

  test.each<[string, () => HeicColour]>([
    ['its ICC profile', () => ({ icc: displayP3 })],
    ['nclx (primaries 12, transfer 13)', () => ({ nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } })],
  ])('described by %s is stored as a JPEG that shows what the P3 JPEG shows; its variants are sRGB', async (_label, colour) => {
    const bytes = await heic({ width: WIDTH, height: HEIGHT, picture: p3Numbers, colour: colour(), quality: 90 });
    const res = await upload(bytes, 'IMG_0001.HEIC');
    expect(res.status).toBe(200);
    const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });
    expect([image.width, image.height, image.bits, image.channels]).toEqual([WIDTH, HEIGHT, 8, 3]);
    const stored = await expectServedFiles(app, image);

    // Tagged, not converted: the P3 numbers, with Display P3's profile.
    expect((await sharp(stored).metadata()).icc?.equals(displayP3)).toBe(true);
    expect(within(await numbersAt(stored, centres[0][0], centres[0][1]), [94, 197, 80], 3)).toBe(true);

    const medium = await fetchBytes(image.medium.url);
    const thumb = await fetchBytes(image.thumb.url);
    for (const variant of [medium, thumb]) expect((await sharp(variant).metadata()).icc).toBeUndefined();
    // Each patch, in sRGB: the P3 JPEG's rendering, and the stored file's and the medium's, within 6 a channel.
    const scale = image.medium.width / WIDTH;
    const patchesSeen = await Promise.all(
      centres.map(async ([x, y]) => ({
        at: [x, y],
        expected: await srgbAt(p3Jpeg, x, y),
        stored: await srgbAt(stored, x, y),
        medium: await srgbAt(medium, Math.round(x * scale), Math.round(y * scale)),
      }))
    );
    expect(patchesSeen.filter((seen) => !within(seen.stored, seen.expected, 6) || !within(seen.medium, seen.expected, 6))).toEqual([]);
    // The thumb is the centre square (x 150 to 750) at 160/600: (20, 20) is in the green patch, (140, 140) in the last.
    const thumbScale = 600 / image.thumb.width;
    const thumbSeen = await Promise.all(
      [[20, 20], [140, 140]].map(async ([x, y]) => ({ thumb: await srgbAt(thumb, x, y), expected: await srgbAt(p3Jpeg, 150 + x * thumbScale, y * thumbScale) }))
    );
    expect(thumbSeen.filter((seen) => !within(seen.thumb, seen.expected, 6))).toEqual([]);
  });
});
