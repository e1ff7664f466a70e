/**
 * What a stored image's files hold (docs/api.md, "The image object"): a Display P3 HEIC's colours
 * (ICC profile or nclx) go with its pixels; variants are encoded for the web (never bigger than a
 * source with more pixels); `bits` and `channels` are the stored files' own, read from their bytes.
 */
import sharp, { type Sharp } from 'sharp';
import { useApp } from '../../helpers/app';
import { heic, type HeicColour } from '../../../tools/support/images/heif';
import { binaryParser, expectServedFiles, expectUploadJson } from '../../helpers/image-json';
import { storedLayout, type StoredLayout } from '../../helpers/stored-layout';
import { animatedGif } from '../../../tools/support/images/gif';
import { bmp } from '../../../tools/support/images/corpus';

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

  test('whose colour profile is not an RGB ICC profile is stored untagged, its numbers as sRGB (no 500)', async () => {
    const bytes = await heic({ width: 600, height: 400, colour: { icc: Buffer.alloc(500, 7) } });
    const res = await upload(bytes, 'odd.heic');
    expect(res.status).toBe(200);
    const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });
    const stored = await expectServedFiles(app, image);
    expect((await sharp(stored).metadata()).icc).toBeUndefined();
    expect(storedLayout(stored)).toMatchObject({ bits: 8, channels: 3 });
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

/** A graphic (a chart, a logo): flat shapes of six colours on a background, transparent where `channels` has alpha. */
function graphic(width: number, height: number, channels: 1 | 2 | 3 | 4): Sharp {
  const data = Buffer.alloc(width * height * channels);
  const colours = [[240, 240, 235], [200, 40, 40], [40, 120, 200], [60, 170, 80], [250, 200, 40], [90, 90, 90]];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [cx, cy] = [x - width / 2, y - height / 2];
      let c = 0;
      if (cx * cx + cy * cy < (height / 4) ** 2) c = 1;
      else if (x % 97 < 40 && y % 83 < 30) c = 2;
      else if ((x + y) % 61 < 6) c = 3;
      else if (y > height * 0.85 && x % 50 < 45) c = 4;
      else if (x < 8 || y < 8) c = 5;
      const i = (y * width + x) * channels;
      if (channels <= 2) data[i] = colours[c][1];
      else [data[i], data[i + 1], data[i + 2]] = colours[c];
      if (channels === 2 || channels === 4) data[i + channels - 1] = c === 0 ? 0 : 255;
    }
  }
  return sharp(data, { raw: { width, height, channels } });
}

/** A photo-like picture, 16 bits a sample: smooth gradients and fine noise. */
function photo16(width: number, height: number): Sharp {
  const data = new Uint16Array(width * height * 3);
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % 512;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = Math.min(65535, (x / width) * 60000 + noise());
      data[i + 1] = Math.min(65535, (y / height) * 60000 + noise());
      data[i + 2] = Math.min(65535, 30000 + 20000 * Math.sin(x / 40) * Math.cos(y / 50) + noise());
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

/** A 32-bit BMP (bottom-up, BI_RGB with its alpha byte used, as decode-bmp reads it) of the graphic. */
async function bmp32(width: number, height: number): Promise<Buffer> {
  return bmp(width, height, await graphic(width, height, 4).raw().toBuffer(), 32);
}

describe('variants encoded for the web, never bigger than a source with more pixels; bits and channels as the files hold them', () => {
  // Graphics as large as a chart; photos smaller (libimagequant and lossless WebP take a while on them).
  const [W, H] = [1200, 900];
  const [PW, PH] = [800, 600];
  type Expected = { original: Partial<StoredLayout>; variants: Partial<StoredLayout> };
  test.each<[string, string, () => Promise<Buffer>, Expected]>([
    ['a palette PNG: palette variants', 'chart.png', () => graphic(W, H, 3).png({ palette: true }).toBuffer(), {
      original: { bits: 8, channels: 3, pngColourType: 3 },
      variants: { bits: 8, channels: 3, pngColourType: 3 },
    }],
    ['a palette PNG of a photo', 'photo.png', () => photo16(PW, PH).png({ palette: true }).toBuffer(), {
      original: { bits: 8, channels: 3, pngColourType: 3 },
      variants: { bits: 8, channels: 3, pngColourType: 3 },
    }],
    ['a 16-bit PNG photo: 8-bit variants', 'photo16.png', () => photo16(PW, PH).toColourspace('rgb16').png().toBuffer(), {
      original: { bits: 16, channels: 3, pngColourType: 2 },
      variants: { bits: 8, channels: 3 },
    }],
    ['a 16-bit PNG graphic: 8-bit variants', 'chart16.png', () => graphic(W, H, 3).toColourspace('rgb16').png().toBuffer(), {
      original: { bits: 16, channels: 3, pngColourType: 2 },
      variants: { bits: 8, channels: 3 },
    }],
    ['a grey and alpha PNG: grey and alpha variants', 'mask.png', () => graphic(W, H, 2).toColourspace('b-w').png().toBuffer(), {
      original: { bits: 8, channels: 2, pngColourType: 4 },
      variants: { bits: 8, channels: 2, pngColourType: 4 },
    }],
    ['a lossless WebP graphic', 'chart.webp', () => graphic(W, H, 4).webp({ lossless: true }).toBuffer(), {
      original: { bits: 8, channels: 4, lossless: true },
      variants: { bits: 8, channels: 4 },
    }],
    ['a lossless WebP photo', 'photo.webp', () => photo16(PW, PH).webp({ lossless: true }).toBuffer(), {
      original: { bits: 8, channels: 3, lossless: true },
      variants: { bits: 8, channels: 3 },
    }],
    ['a 32-bit BMP (stored as an RGBA PNG)', 'logo.bmp', () => bmp32(W, H), {
      original: { bits: 8, channels: 4, pngColourType: 6 },
      variants: { bits: 8, channels: 4 },
    }],
    ['a GIF with transparency: 8 bits, 4 channels everywhere', 'logo.gif', () => graphic(W, H, 4).gif().toBuffer(), {
      original: { bits: 8, channels: 4 },
      variants: { bits: 8, channels: 4 },
    }],
  ])('%s', async (_label, filename, make, expected) => {
    const bytes = await make();
    const res = await upload(bytes, filename);
    expect(res.status).toBe(200);
    const image = res.body.image;
    const files = {
      original: await expectServedFiles(app, image),
      medium: await fetchBytes(image.medium.url),
      thumb: await fetchBytes(image.thumb.url),
    };
    const json = { original: image, medium: image.medium, thumb: image.thumb };
    // The JSON says what each file holds, read from its bytes here.
    for (const key of ['original', 'medium', 'thumb'] as const) {
      const layout = storedLayout(files[key]);
      expect({ file: key, bits: json[key].bits, channels: json[key].channels }).toEqual({ file: key, bits: layout.bits, channels: layout.channels });
      expect(layout).toMatchObject(key === 'original' ? expected.original : expected.variants);
    }
    // Fewer pixels than the stored original: never more bytes.
    for (const key of ['medium', 'thumb'] as const) {
      expect(json[key].width * json[key].height).toBeLessThan(image.width * image.height);
      expect({ file: key, size: files[key].length, notAbove: files[key].length <= files.original.length }).toEqual({ file: key, size: json[key].size, notAbove: true });
    }
  });

  test('a GIF without a transparent index: 3 channels and 8 bits (sharp reports its 3-bit index); its variants as libvips writes them', async () => {
    const bytes = animatedGif({ width: 600, height: 400, frames: 1, colorBits: 3 });
    expect((await sharp(bytes).metadata()).bitsPerSample).toBe(3);
    const res = await upload(bytes, 'still.gif');
    expect(res.status).toBe(200);
    const image = expectUploadJson(res.body, { extension: 'gif', mime: 'image/gif' });
    expect([image.bits, image.channels]).toEqual([8, 3]);
    expect(storedLayout(await expectServedFiles(app, image))).toMatchObject({ bits: 8, channels: 3 });
    for (const variant of [image.medium, image.thumb]) {
      const layout = storedLayout(await fetchBytes(variant.url));
      expect([variant.bits, variant.channels]).toEqual([layout.bits, layout.channels]);
    }
  });
});
