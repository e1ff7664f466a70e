/** What a file holds, from its bytes: bits per channel, channels (alpha and transparency), palette, lossless. */
import sharp from 'sharp';
import { layoutOf, type LayoutFormat } from '../../server/src/images/file-layout';
import { animated, randomBytes } from '../../../../tests/helpers/fixtures';
import { animatedGif } from '../../../../tools/support/images/gif';

const opaque = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } });
const halfClear = () => sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 51, g: 102, b: 153, alpha: 0.5 } } });

/** A PNG with a chunk inserted after IHDR (8 + 25 bytes); the CRC is not checked by the reader. */
const withChunk = (png: Buffer, type: string, data: Buffer) => {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
};

describe('PNG: IHDR and tRNS', () => {
  test.each<[string, () => Promise<Buffer>, { bits: number; channels: number; palette: boolean }]>([
    ['grey', () => opaque().toColourspace('b-w').png().toBuffer(), { bits: 8, channels: 1, palette: false }],
    ['grey with tRNS', async () => withChunk(await opaque().toColourspace('b-w').png().toBuffer(), 'tRNS', Buffer.from([0, 0])), { bits: 8, channels: 2, palette: false }],
    ['grey and alpha', () => halfClear().toColourspace('b-w').png().toBuffer(), { bits: 8, channels: 2, palette: false }],
    ['RGB', () => opaque().png().toBuffer(), { bits: 8, channels: 3, palette: false }],
    ['RGBA', () => halfClear().png().toBuffer(), { bits: 8, channels: 4, palette: false }],
    ['16-bit RGB', () => opaque().toColourspace('rgb16').png().toBuffer(), { bits: 16, channels: 3, palette: false }],
    ['palette of 2 bits', () => opaque().png({ palette: true, colours: 4 }).toBuffer(), { bits: 8, channels: 3, palette: true }],
    ['palette with tRNS', () => halfClear().png({ palette: true }).toBuffer(), { bits: 8, channels: 4, palette: true }],
  ])('%s', async (_label, make, expected) => {
    expect(layoutOf(await make(), 'png')).toEqual({ ...expected, lossless: true });
  });
});

describe('GIF: 8-bit palette entries; a transparent index declared in any frame is alpha', () => {
  test('no transparent index: 3 channels, 8 bits (libvips reports the index size as bits)', async () => {
    const bytes = animatedGif({ width: 40, height: 30, frames: 1, colorBits: 3 });
    expect(await sharp(bytes).metadata()).toMatchObject({ channels: 3, bitsPerSample: 3 });
    expect(layoutOf(bytes, 'gif')).toEqual({ bits: 8, channels: 3, palette: true, lossless: true });
  });

  test('libvips declares a transparent index in every GIF it writes: 4 channels', async () => {
    const bytes = await opaque().gif().toBuffer();
    expect(layoutOf(bytes, 'gif')).toEqual({ bits: 8, channels: 4, palette: true, lossless: true });
  });

  test('an animation whose third frame declares the transparent index', () => {
    const bytes = Buffer.from(animatedGif({ width: 40, height: 30, frames: 4 }));
    const controls = [...bytes.keys()].filter((at) => bytes[at] === 0x21 && bytes[at + 1] === 0xf9 && bytes[at + 2] === 4);
    expect(controls).toHaveLength(4);
    expect(layoutOf(bytes, 'gif')?.channels).toBe(3);
    bytes[controls[2] + 3] |= 1;
    expect(layoutOf(bytes, 'gif')?.channels).toBe(4);
  });
});

describe('JPEG: the frame header', () => {
  test.each<[string, () => Promise<Buffer>, number]>([
    ['colour', () => opaque().jpeg().toBuffer(), 3],
    ['grey', () => opaque().toColourspace('b-w').jpeg().toBuffer(), 1],
    ['progressive CMYK', () => opaque().toColourspace('cmyk').jpeg({ progressive: true }).toBuffer(), 4],
  ])('%s', async (_label, make, channels) => {
    expect(layoutOf(await make(), 'jpeg')).toEqual({ bits: 8, channels, palette: false, lossless: false });
  });
});

describe('WebP: what the chunks hold, not what VP8X claims', () => {
  test.each<[string, () => Promise<Buffer>, { channels: number; lossless: boolean }]>([
    ['lossy', () => opaque().webp().toBuffer(), { channels: 3, lossless: false }],
    ['lossy with alpha (ALPH)', () => halfClear().webp().toBuffer(), { channels: 4, lossless: false }],
    ['lossless', () => opaque().webp({ lossless: true }).toBuffer(), { channels: 3, lossless: true }],
    ['lossless with alpha', () => halfClear().webp({ lossless: true }).toBuffer(), { channels: 4, lossless: true }],
    ['lossless, alpha all opaque (libwebp leaves the alpha bit clear)', () => opaque().ensureAlpha().webp({ lossless: true }).toBuffer(), { channels: 3, lossless: true }],
    ['animated', () => animated(40, 30, 3, 'webp'), { channels: 3, lossless: false }],
  ])('%s', async (_label, make, expected) => {
    expect(layoutOf(await make(), 'webp')).toEqual({ bits: 8, palette: false, ...expected });
  });

  test('VP8X alpha flag cleared (as exiftool writes it) with an ALPH chunk: 4 channels', async () => {
    const bytes = Buffer.from(await halfClear().webp().toBuffer());
    expect(bytes.toString('latin1', 12, 16)).toBe('VP8X');
    bytes[20] &= ~0x10;
    expect(layoutOf(bytes, 'webp')?.channels).toBe(4);
  });
});

describe('hostile or cut bytes: null or a reading, never an exception, never a long walk', () => {
  const formats: LayoutFormat[] = ['png', 'gif', 'jpeg', 'webp'];

  test('AVIF is not read here; random bytes are nothing', () => {
    expect(layoutOf(randomBytes(1000), 'avif')).toBeNull();
    for (const format of formats) expect(layoutOf(randomBytes(1000, 7), format)).toBeNull();
  });

  test('every cut of real files', async () => {
    const files: Array<[LayoutFormat, Buffer]> = [
      ['png', await halfClear().png({ palette: true }).toBuffer()],
      ['gif', await animated(20, 20, 3, 'gif')],
      ['jpeg', await opaque().jpeg().toBuffer()],
      ['webp', await animated(20, 20, 3, 'webp')],
    ];
    for (const [format, bytes] of files) {
      for (let end = 0; end <= bytes.length; end += 7) expect(() => layoutOf(bytes.subarray(0, end), format)).not.toThrow();
    }
  });

  test('lying lengths: every length field set to its largest', async () => {
    const gif = Buffer.from(await animated(20, 20, 2, 'gif'));
    for (let at = 13; at < gif.length; at += 3) {
      const lying = Buffer.from(gif);
      lying[at] = 0xff;
      expect(() => layoutOf(lying, 'gif')).not.toThrow();
    }
    const webp = Buffer.from(await animated(20, 20, 2, 'webp'));
    for (let at = 12; at + 8 <= webp.length; at += 4) {
      const lying = Buffer.from(webp);
      lying.writeUInt32LE(0xffffffff, at);
      expect(() => layoutOf(lying, 'webp')).not.toThrow();
    }
  });

  test('a WebP of 100,000 nested frames is walked in one pass (frames hold no frames)', () => {
    const depth = 100_000;
    const bytes = Buffer.alloc(12 + depth * 24 + 20);
    bytes.write('RIFF', 0, 'latin1');
    bytes.write('WEBP', 8, 'latin1');
    for (let level = 0; level < depth; level++) {
      const at = 12 + level * 24;
      bytes.write('ANMF', at, 'latin1');
      bytes.writeUInt32LE(bytes.length - at - 8, at + 4);
    }
    // Not linear, this would take minutes: past the suite's time limit.
    expect(layoutOf(bytes, 'webp')).toBeNull();
  });
});
