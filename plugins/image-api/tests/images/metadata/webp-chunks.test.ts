import sharp from 'sharp';
import { stripWebp, withTrueAlphaFlag } from '../../../server/src/images/metadata/webp-chunks';
import { PERSONAL_EXIF, webp } from '../../../../../tests/helpers/fixtures';
import { animatedWebp } from '../../../../../tools/support/images/webp';
import { GPS_TEXT, holds, riffChunk, riffWebp, tiffWithText, vp8x, webpChunkList, xmpPacket } from '../../../../../tests/helpers/metadata-fixtures';
import { expectOnlyRefusals, outcome } from './hostile';

const ALPHA = 0x10;
const EXIF_FLAG = 0x08;
const XMP_FLAG = 0x04;

/** 4×4 pixels, every other one fully transparent. */
const halfTransparent = () => {
  const px = Buffer.alloc(4 * 4 * 4);
  for (let i = 0; i < 16; i++) px.set([200, 30, 10, i % 2 ? 0 : 255], i * 4);
  return sharp(px, { raw: { width: 4, height: 4, channels: 4 } });
};
const chunkTypes = (file: Buffer) => webpChunkList(file).map((c) => c.type);
const chunk = (file: Buffer, type: string) => webpChunkList(file).find((c) => c.type === type)!.bytes;
const flags = (file: Buffer) => chunk(file, 'VP8X')[8];
const decoded = async (file: Buffer) => {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { channels: info.channels, pixels: data.toString('base64') };
};

describe('stripWebp keeps the picture and drops the rest', () => {
  test('a WebP without metadata comes back as the same Buffer', async () => {
    for (const plain of [await webp(16, 16), await halfTransparent().webp({ lossless: true }).toBuffer(), await animatedWebp({ width: 8, height: 8, frames: 3 })]) {
      expect(stripWebp(plain)).toEqual({ bytes: plain, removed: [] });
    }
  });

  test('a lossless WebP with EXIF stays lossless: its VP8L chunk byte for byte, EXIF gone, flags and RIFF size rewritten', async () => {
    const received = await halfTransparent().webp({ lossless: true }).withExif(PERSONAL_EXIF).toBuffer();
    expect(chunkTypes(received)).toEqual(['VP8X', 'VP8L', 'EXIF']);
    const { bytes, removed } = stripWebp(received);
    expect(chunkTypes(bytes)).toEqual(['VP8X', 'VP8L']);
    expect(chunk(bytes, 'VP8L').equals(chunk(received, 'VP8L'))).toBe(true);
    expect(flags(bytes)).toBe(flags(received) & ~EXIF_FLAG);
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(removed).toEqual([{ what: 'EXIF', count: 1, bytes: chunk(received, 'EXIF').length }]);
    for (const needle of ['EXIF', 'Exif', 'Jane Doe', 'PhoneCo']) expect(holds(bytes, needle)).toBe(false);
    expect(await decoded(bytes)).toEqual(await decoded(received));
  });

  test('XMP, unknown chunks and what follows the RIFF go; ICCP and ALPH stay', async () => {
    const lossy = await halfTransparent().webp({ quality: 80 }).withIccProfile('p3').toBuffer();
    expect(chunkTypes(lossy)).toEqual(['VP8X', 'ICCP', 'ALPH', 'VP8 ']);
    const [head, icc, alph, vp8] = webpChunkList(lossy).map((c) => Buffer.from(c.bytes));
    head[8] |= XMP_FLAG | EXIF_FLAG;
    const received = Buffer.concat([
      riffWebp(head, icc, riffChunk('XMP ', xmpPacket()), alph, riffChunk('JUNK', Buffer.from(GPS_TEXT)), vp8, riffChunk('EXIF', tiffWithText('Jane Doe', GPS_TEXT))),
      Buffer.from(`trailer ${GPS_TEXT}`),
    ]);
    const { bytes, removed } = stripWebp(received);
    expect(bytes.equals(lossy)).toBe(true);
    expect(removed.map((r) => r.what)).toEqual(['XMP', 'unknown chunk', 'EXIF', 'after RIFF']);
  });

  test('the alpha flag is set when the image has alpha (VP8L header, ALPH, a frame), as exiftool leaves it cleared', async () => {
    for (const file of [
      await halfTransparent().webp({ lossless: true }).withExif(PERSONAL_EXIF).toBuffer(),
      await halfTransparent().webp({ quality: 80 }).withExif(PERSONAL_EXIF).toBuffer(),
    ]) {
      const received = Buffer.from(file);
      received[20] &= ~ALPHA;
      expect((await decoded(received)).channels).toBe(3);
      const { bytes } = stripWebp(received);
      expect(flags(bytes) & ALPHA).toBe(ALPHA);
      const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
      expect([data[3], data[7]]).toEqual([255, 0]);
    }
    // An animation whose frame is a VP8L with alpha (libvips' animation decoder gives alpha whatever
    // the flag says; other readers go by it).
    const vp8l = chunk(await halfTransparent().webp({ lossless: true }).toBuffer(), 'VP8L');
    const frameHeader = Buffer.from([0, 0, 0, 0, 0, 0, 3, 0, 0, 3, 0, 0, 100, 0, 0, 0]);
    const animation = riffWebp(vp8x(0x02 | EXIF_FLAG, 4, 4), riffChunk('ANIM', Buffer.alloc(6)), riffChunk('ANMF', Buffer.concat([frameHeader, vp8l])), riffChunk('EXIF', tiffWithText('Jane Doe', GPS_TEXT)));
    const { bytes } = stripWebp(animation);
    expect(flags(bytes)).toBe(0x02 | ALPHA);
    const { data } = await sharp(bytes, { animated: true }).raw().toBuffer({ resolveWithObject: true });
    expect([data[3], data[7]]).toEqual([255, 0]);
  });

  test('withTrueAlphaFlag repairs a file without metadata too, in a copy; anything else comes back as it is', async () => {
    const file = await halfTransparent().webp({ lossless: true }).withIccProfile('srgb').toBuffer();
    expect(chunkTypes(file)).toEqual(['VP8X', 'ICCP', 'VP8L']);
    const received = Buffer.from(file);
    received[20] &= ~ALPHA;
    const repaired = withTrueAlphaFlag(received);
    expect(repaired.equals(file)).toBe(true);
    expect(received[20] & ALPHA).toBe(0);
    for (const other of [file, await webp(8, 8), Buffer.from('RIFF\xff\xff\xff\xffWEBPVP8X', 'latin1'), Buffer.from('GIF89a')]) expect(withTrueAlphaFlag(other)).toBe(other);
    // An opaque image keeps its flags.
    const opaque = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123' } }).webp({ lossless: true }).withIccProfile('srgb').toBuffer();
    expect(withTrueAlphaFlag(opaque)).toBe(opaque);
  });

  test('an animation keeps its frames; EXIF goes, and so does an unknown chunk inside a frame (its size rewritten)', async () => {
    const exif = tiffWithText('Jane Doe', GPS_TEXT);
    const plain = await animatedWebp({ width: 16, height: 16, frames: 3 });
    const received = await animatedWebp({ width: 16, height: 16, frames: 3, exif });
    const stripped = stripWebp(received).bytes;
    expect(stripped.equals(plain)).toBe(true);
    // A frame with a chunk of its own after its bitstream.
    const parts = webpChunkList(plain).map((c) => c.bytes);
    const frame = parts[2];
    const payload = Buffer.concat([frame.subarray(8), riffChunk('XYZW', Buffer.from(GPS_TEXT + '!'))]);
    const received2 = riffWebp(parts[0], parts[1], riffChunk('ANMF', payload), ...parts.slice(3));
    const { bytes, removed } = stripWebp(received2);
    expect(bytes.equals(plain)).toBe(true);
    expect(removed).toEqual([{ what: 'unknown chunk in a frame', count: 1, bytes: 8 + GPS_TEXT.length + 1 + 1 }]);
    expect((await sharp(bytes, { animated: true }).metadata()).pages).toBe(3);
  });

  test('a simple WebP is its one bitstream chunk: chunks after it go', async () => {
    const image = await webp(8, 8);
    const [vp8] = webpChunkList(image).map((c) => c.bytes);
    const received = riffWebp(vp8, riffChunk('EXIF', tiffWithText('Jane Doe', GPS_TEXT)));
    expect(stripWebp(received)).toEqual({ bytes: image, removed: [{ what: 'EXIF', count: 1, bytes: received.length - image.length }] });
  });
});

describe('stripWebp on hostile input: 400/311 or a result, in linear time', () => {
  const truncated = { status: 400, code: 311, message: 'Invalid image: truncated' };

  test.each([
    ['the RIFF size past the end', (image: Buffer) => image.subarray(0, image.length - 4)],
    ['a chunk size past the RIFF', (image: Buffer) => riffWebp(image.subarray(12), Buffer.from('EXIF\xff\xff\xff\x7f', 'latin1'))],
    ['a stray byte or seven at the RIFF end', (image: Buffer) => riffWebp(image.subarray(12), Buffer.from('EXIF', 'latin1'))],
    ['a frame size past its parent', () => riffWebp(vp8x(0x02, 4, 4), riffChunk('ANMF', Buffer.concat([Buffer.alloc(16), Buffer.from('VP8L\xff\0\0\0', 'latin1')])))],
  ])('%s: refused', async (_label, make) => {
    expect(outcome(stripWebp, make(await webp(8, 8)))).toEqual(truncated);
  });

  test.each([
    ['no bitstream first', () => riffWebp(riffChunk('ALPH', Buffer.alloc(4))), 'first chunk'],
    ['a VP8X too short', () => riffWebp(riffChunk('VP8X', Buffer.alloc(4))), 'VP8X'],
    ['a frame shorter than its header', () => riffWebp(vp8x(0x02, 4, 4), riffChunk('ANMF', Buffer.alloc(8))), 'frame header'],
  ])('%s: refused', (_label, make, detail) => {
    expect(outcome(stripWebp, make())).toEqual({ status: 400, code: 311, message: `Invalid image: ${detail}` });
  });

  test('300,000 unknown chunks, and frames full of them: linear time', async () => {
    const base = await halfTransparent().webp({ lossless: true }).withExif(PERSONAL_EXIF).toBuffer();
    const [head, vp8l] = webpChunkList(base).map((c) => c.bytes);
    const junk = riffChunk('JUNK', Buffer.alloc(0));
    const frame = riffChunk('ANMF', Buffer.concat([Buffer.alloc(16), ...Array(1000).fill(junk)]));
    const received = riffWebp(head, vp8l, Buffer.concat(Array(300_000).fill(junk)), Buffer.concat(Array(300).fill(frame)));
    let stripped: ReturnType<typeof stripWebp> | undefined;
    stripped = stripWebp(received);
    expect(stripped!.bytes.length).toBe(12 + head.length + vp8l.length + 300 * 24);
    expect(stripped!.removed.map((r) => [r.what, r.count])).toEqual([['unknown chunk', 300_000], ['unknown chunk in a frame', 300_000]]);
  });

  test('mutated files: a result no larger than the input, or 400/311, never another error', async () => {
    expectOnlyRefusals(stripWebp, await halfTransparent().webp({ quality: 70 }).withExif(PERSONAL_EXIF).toBuffer());
    expectOnlyRefusals(stripWebp, await animatedWebp({ width: 8, height: 8, frames: 3, exif: tiffWithText('a', 'b') }));
  });
});
