import sharp from 'sharp';
import { stripGif } from '../../../server/src/images/metadata/gif-blocks';
import { animated, gif } from '../../../../../tests/helpers/fixtures';
import { animatedGif } from '../../../../../tools/support/images/gif';
import { GPS_TEXT, gifComment, gifXmp, holds, subBlocks, withGifBlocks } from '../../../../../tests/helpers/metadata-fixtures';
import { expectOnlyRefusals, outcome } from './hostile';

const frames = async (bytes: Buffer) => {
  const { data, info } = await sharp(bytes, { animated: true }).raw().toBuffer({ resolveWithObject: true });
  const meta = await sharp(bytes).metadata();
  return { pixels: data.toString('base64'), pages: meta.pages, delay: meta.delay, loop: meta.loop, height: info.height };
};
const application = (identifier: string, data: Buffer) => Buffer.concat([Buffer.from([0x21, 0xff, 11]), Buffer.from(identifier, 'latin1'), subBlocks(data)]);
const plainText = () => Buffer.concat([Buffer.from([0x21, 0x01, 12]), Buffer.alloc(12), subBlocks(Buffer.from(GPS_TEXT))]);
/** The loop block (NETSCAPE2.0) at the start of `file`'s blocks, as sharp writes it. */
const loopBlockOf = (file: Buffer) => {
  const at = file.indexOf(Buffer.from('NETSCAPE2.0', 'latin1')) - 3;
  return { at, block: file.subarray(at, at + 19) };
};

describe('stripGif keeps the picture and drops the rest', () => {
  test('GIFs without metadata (a still, an animation with its loop block) come back as the same Buffer', async () => {
    for (const plain of [await gif(16, 16), await animated(16, 16, 3), animatedGif({ width: 8, height: 8, frames: 4 })]) {
      expect(stripGif(plain)).toEqual({ bytes: plain, removed: [] });
      expect(stripGif(plain).bytes).toBe(plain);
    }
  });

  test('comments, XMP (with its magic trailer), other application, plain-text and unknown extensions go; frames, delays and the loop stay', async () => {
    const base = await animated(24, 16, 3);
    const dropped = [gifComment(`Shot at ${GPS_TEXT}`), gifXmp(), application('ICCRGBG1012', Buffer.alloc(300, 7)), plainText(), Buffer.concat([Buffer.from([0x21, 0x99]), subBlocks(Buffer.from('?'))])];
    const received = Buffer.concat([withGifBlocks(base, ...dropped.slice(0, 3)), Buffer.alloc(0)]);
    // Two more before the trailer.
    const withTail = Buffer.concat([received.subarray(0, received.length - 1), dropped[3], dropped[4], Buffer.from([0x3b])]);
    const { bytes, removed } = stripGif(withTail);
    expect(bytes.equals(base)).toBe(true);
    expect(removed.map((r) => [r.what, r.count, r.bytes])).toEqual([
      ['comment extension', 1, dropped[0].length], ['application extension', 2, dropped[1].length + dropped[2].length],
      ['plain text extension', 1, dropped[3].length], ['other extension', 1, dropped[4].length],
    ]);
    for (const needle of ['XMP DataXMP', 'xmpmeta', 'GPS', 'Jane Doe', 'ICCRGBG1012']) expect(holds(bytes, needle)).toBe(false);
    expect(await frames(bytes)).toEqual(await frames(base));
  });

  test('what follows the trailer is dropped', async () => {
    const image = await gif(8, 8);
    const received = Buffer.concat([image, Buffer.from(`${GPS_TEXT};`)]);
    expect(stripGif(received)).toEqual({ bytes: image, removed: [{ what: 'after trailer', count: 1, bytes: received.length - image.length }] });
  });

  test('data hidden in the loop block\'s sub-blocks goes; the loop count stays', async () => {
    const base = await animated(16, 16, 2);
    const { at, block } = loopBlockOf(base);
    const padded = Buffer.concat([block.subarray(0, 18), Buffer.from([5]), Buffer.from('hello'), Buffer.from([0])]);
    const received = Buffer.concat([base.subarray(0, at), padded, base.subarray(at + 19)]);
    const { bytes, removed } = stripGif(received);
    expect(bytes.equals(base)).toBe(true);
    expect(removed).toEqual([{ what: 'loop block data', count: 1, bytes: padded.length }]);
    // A loop block of another loop count, with its data before the loop sub-block.
    const reordered = Buffer.concat([block.subarray(0, 14), Buffer.from([2, 0xaa, 0xbb, 3, 1, 5, 0, 0])]);
    const other = stripGif(Buffer.concat([base.subarray(0, at), reordered, base.subarray(at + 19)])).bytes;
    expect(other.subarray(at, at + 19).equals(Buffer.concat([block.subarray(0, 14), Buffer.from([3, 1, 5, 0, 0])]))).toBe(true);
    // libvips counts plays: NETSCAPE2.0's 5 repeats after the first.
    expect((await sharp(other).metadata()).loop).toBe(6);
  });

  test('a probe (write false) tallies the same and copies nothing', async () => {
    const received = withGifBlocks(await gif(8, 8), gifComment('hello'), gifXmp());
    const probe = stripGif(received, false);
    expect(probe.bytes).toBe(received);
    expect(probe.removed).toEqual(stripGif(received).removed);
  });
});

describe('stripGif on hostile input: 400/311 or a result, in linear time', () => {
  const truncated = { status: 400, code: 311, message: 'Invalid image: truncated' };

  test.each([
    ['cut inside the image data', (image: Buffer) => image.subarray(0, image.length - 20)],
    ['cut inside the global colour table', (image: Buffer) => image.subarray(0, 20)],
    ['a sub-block size past the end', (image: Buffer) => Buffer.concat([image.subarray(0, image.length - 1), Buffer.from([0x21, 0xfe, 200, 1, 2, 3])])],
    ['no trailer', (image: Buffer) => image.subarray(0, image.length - 1)],
  ])('%s: refused', async (_label, cut) => {
    expect(outcome(stripGif, cut(await gif(16, 16)))).toEqual(truncated);
  });

  test('a byte that starts no block: refused before any image; after one, it ends the file (libvips reads no further)', async () => {
    const image = await gif(16, 16);
    const screenEnd = 13 + 3 * 2 ** ((image[10] & 7) + 1);
    const before = Buffer.concat([image.subarray(0, screenEnd), Buffer.from([0x99]), image.subarray(screenEnd)]);
    expect(outcome(stripGif, before)).toEqual({ status: 400, code: 311, message: 'Invalid image: unknown block' });
    const after = Buffer.concat([image.subarray(0, image.length - 1), Buffer.from([0x99]), gifComment(GPS_TEXT), Buffer.from([0x3b])]);
    expect(stripGif(after)).toEqual({ bytes: image.subarray(0, image.length - 1), removed: [{ what: 'unreadable tail', count: 1, bytes: after.length - image.length + 1 }] });
  });

  test('200,000 comment blocks and a comment of 1,000,000 one-byte sub-blocks: linear time', async () => {
    const base = await gif(8, 8);
    const tiny = gifComment('x');
    const oneByteBlocks = Buffer.concat([Buffer.from([0x21, 0xfe]), Buffer.alloc(2_000_000, 1), Buffer.from([0])]);
    const received = withGifBlocks(base, Buffer.concat(Array(200_000).fill(tiny)), oneByteBlocks);
    let stripped: ReturnType<typeof stripGif> | undefined;
    stripped = stripGif(received);
    expect(stripped!.bytes.equals(base)).toBe(true);
    expect(stripped!.removed).toEqual([{ what: 'comment extension', count: 200_001, bytes: 200_000 * tiny.length + oneByteBlocks.length }]);
  });

  test('mutated files: a result no larger than the input, or 400/311, never another error', async () => {
    expectOnlyRefusals(stripGif, withGifBlocks(await animated(16, 16, 3), gifComment('hi'), gifXmp()));
  });
});
