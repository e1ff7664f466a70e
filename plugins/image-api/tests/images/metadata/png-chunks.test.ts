import sharp from 'sharp';
import { stripPng } from '../../../server/src/images/metadata/png-chunks';
import { png } from '../../../../../tests/helpers/fixtures';
import {
  GPS_TEXT, holds, pngChunk, pngChunkList, rawProfileExif, tEXt, tiffWithText, withPngChunks, xmpPacket,
} from '../../../../../tests/helpers/metadata-fixtures';
import { expectOnlyRefusals, outcome } from './hostile';

const pixels = async (bytes: Buffer) => (await sharp(bytes).raw().toBuffer()).toString('base64');
const iTXt = (keyword: string, text: Buffer) => pngChunk('iTXt', Buffer.concat([Buffer.from(`${keyword}\0\0\0\0\0`, 'latin1'), text]));
const eXIf = () => pngChunk('eXIf', tiffWithText('Jane Doe', GPS_TEXT));
const tIME = () => pngChunk('tIME', Buffer.from([0x07, 0xe8, 5, 17, 10, 30, 0]));

/** A two-frame APNG, assembled from two PNGs of the same size (their IDAT data as the frames). */
async function apng(): Promise<Buffer> {
  const [one, two] = [await png(16, 16), await sharp(await png(16, 16)).negate().png().toBuffer()];
  const ihdr = pngChunkList(one)[0].bytes;
  const idat = (file: Buffer) => Buffer.concat(pngChunkList(file).filter((c) => c.type === 'IDAT').map((c) => c.bytes.subarray(8, c.bytes.length - 4)));
  const u32 = (...values: number[]) => Buffer.concat(values.map((v) => Buffer.from([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255])));
  const fcTL = (sequence: number) => pngChunk('fcTL', Buffer.concat([u32(sequence, 16, 16, 0, 0), Buffer.from([0, 10, 0, 100, 0, 0])]));
  return Buffer.concat([
    one.subarray(0, 8), ihdr, pngChunk('acTL', u32(2, 0)), fcTL(0), pngChunk('IDAT', idat(one)),
    fcTL(1), pngChunk('fdAT', Buffer.concat([u32(2), idat(two)])), pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('stripPng keeps the picture and drops the rest', () => {
  test('a PNG without metadata comes back as the same Buffer', async () => {
    const plain = await png(32, 32, true);
    expect(stripPng(plain)).toEqual({ bytes: plain, removed: [] });
    expect(stripPng(plain).bytes).toBe(plain);
  });

  test('text (ImageMagick\'s raw profiles included), eXIf, tIME and unknown chunks go; colour, transparency and size chunks stay with their CRCs', async () => {
    const base = await sharp(await png(32, 32)).withIccProfile('p3').png().toBuffer();
    const kept = [pngChunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])), pngChunk('pHYs', Buffer.from([0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1])), pngChunk('sBIT', Buffer.from([8, 8, 8]))];
    const dropped = [
      tEXt('Comment', `Taken at ${GPS_TEXT}`), rawProfileExif(tiffWithText('Jane Doe', GPS_TEXT)), iTXt('XML:com.adobe.xmp', xmpPacket()),
      eXIf(), tIME(), pngChunk('prVt', Buffer.from('private data')),
    ];
    const received = withPngChunks(base, dropped[0], kept[0], dropped[1], dropped[2], kept[1], dropped[3], kept[2], dropped[4], dropped[5]);
    const { bytes, removed } = stripPng(received);
    expect(bytes.equals(withPngChunks(base, ...kept))).toBe(true);
    expect(removed.map((r) => [r.what, r.count, r.bytes])).toEqual([
      ['tEXt', 1, dropped[0].length], ['zTXt', 1, dropped[1].length], ['iTXt', 1, dropped[2].length],
      ['eXIf', 1, dropped[3].length], ['tIME', 1, dropped[4].length], ['other ancillary chunk', 1, dropped[5].length],
    ]);
    for (const needle of ['tEXt', 'zTXt', 'iTXt', 'eXIf', 'Raw profile', 'Jane Doe', 'GPS', 'xmpmeta', 'prVt']) expect(holds(bytes, needle)).toBe(false);
    expect(pngChunkList(bytes).map((c) => c.type)).toContain('iCCP');
    expect(await pixels(bytes)).toBe(await pixels(received));
  });

  test('an APNG keeps acTL, fcTL and fdAT: the animation survives', async () => {
    const animation = await apng();
    const received = withPngChunks(animation, tEXt('Author', 'Jane Doe'));
    expect(stripPng(received).bytes.equals(animation)).toBe(true);
  });

  test('what follows IEND is dropped', async () => {
    const image = await png(16, 16);
    const received = Buffer.concat([image, Buffer.from(`PK\x03\x04 ${GPS_TEXT}`, 'latin1')]);
    expect(stripPng(received)).toEqual({ bytes: image, removed: [{ what: 'after IEND', count: 1, bytes: received.length - image.length }] });
  });

  test('a PNG ending after its image data without IEND is kept as it is (libpng reads it)', async () => {
    const image = await png(16, 16);
    const noEnd = image.subarray(0, image.length - 12);
    expect(stripPng(noEnd).bytes).toBe(noEnd);
  });
});

describe('stripPng on hostile input: 400/311 or a result, in linear time', () => {
  test.each([
    ['cut before the image data', (image: Buffer) => image.subarray(0, 40)],
    ['a chunk length past the end before the image data', (image: Buffer) => withPngChunks(image.subarray(0, 33), Buffer.from([0x7f, 0xff, 0xff, 0xff, 0x74, 0x45, 0x58, 0x74]))],
    ['a length over 2^31 − 1', (image: Buffer) => withPngChunks(image, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x74, 0x45, 0x58, 0x74, 0, 0, 0, 0]))],
    ['a chunk type that is not four letters', (image: Buffer) => withPngChunks(image, pngChunk('t\0Xt', Buffer.alloc(4)))],
  ])('%s: refused', async (_label, make) => {
    expect(outcome(stripPng, make(await png(16, 16)))).toEqual({ status: 400, code: 311, message: 'Invalid image: truncated' });
  });

  test('after the image data, a chunk that cannot be read ends the file (libpng reads no further): dropped', async () => {
    const image = await png(16, 16);
    const beforeEnd = image.subarray(0, image.length - 12);
    const received = Buffer.concat([beforeEnd, Buffer.from([0x7f, 0, 0, 0]), Buffer.from(`tEXt${GPS_TEXT}`)]);
    expect(stripPng(received)).toEqual({ bytes: beforeEnd, removed: [{ what: 'unreadable tail', count: 1, bytes: received.length - beforeEnd.length }] });
  });

  test('300,000 text chunks: one tally entry, linear time', async () => {
    const base = await png(16, 16);
    const received = withPngChunks(base, Buffer.concat(Array(300_000).fill(tEXt('a', ''))));
    let stripped: ReturnType<typeof stripPng> | undefined;
    stripped = stripPng(received);
    expect(stripped!.bytes.equals(base)).toBe(true);
    expect(stripped!.removed).toEqual([{ what: 'tEXt', count: 300_000, bytes: 300_000 * 14 }]);
  });

  test('mutated files: a result no larger than the input, or 400/311, never another error', async () => {
    expectOnlyRefusals(stripPng, withPngChunks(await png(24, 24, true), tEXt('Comment', GPS_TEXT), eXIf()));
    expectOnlyRefusals(stripPng, await apng());
  });
});
