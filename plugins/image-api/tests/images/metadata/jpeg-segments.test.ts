import sharp from 'sharp';
import { stripJpeg } from '../../../server/src/images/metadata/jpeg-segments';
import { jpeg, PERSONAL_EXIF } from '../../../../../tests/helpers/fixtures';
import {
  GPS_TEXT, holds, iptcApp13, jpegComment, jpegSegment, motionPhotoVideo, mpfApp2, withJpegSegments, xmpApp1,
} from '../../../../../tests/helpers/metadata-fixtures';
import { expectOnlyRefusals, outcome } from './hostile';

const pixels = async (bytes: Buffer) => (await sharp(bytes).raw().toBuffer()).toString('base64');
const exifApp1 = async (base: Buffer) => {
  const withExif = await sharp(base).withExif(PERSONAL_EXIF).jpeg().toBuffer();
  const at = withExif.indexOf(Buffer.from('Exif\0\0', 'latin1')) - 4;
  return withExif.subarray(at, at + 2 + withExif.readUInt16BE(at + 2));
};
const adobeApp14 = () => jpegSegment(0xee, Buffer.from('Adobe\0\x64\0\0\0\0\x01', 'latin1'));
/** An ICC profile's APP2 segments, as libvips writes them for Display P3. */
const iccApp2 = async (base: Buffer) => {
  const withIcc = await sharp(base).withIccProfile('p3').jpeg().toBuffer();
  const at = withIcc.indexOf(Buffer.from('ICC_PROFILE\0', 'latin1')) - 4;
  return withIcc.subarray(at, at + 2 + withIcc.readUInt16BE(at + 2));
};

describe('stripJpeg keeps the picture and drops the rest', () => {
  test('a JPEG without metadata comes back as the same Buffer, nothing copied', async () => {
    const plain = await jpeg(64, 48);
    const stripped = stripJpeg(plain);
    expect(stripped.bytes).toBe(plain);
    expect(stripped.removed).toEqual([]);
  });

  test('EXIF, XMP, IPTC, COM, MPF and unknown APPn go; JFIF, the ICC profile and Adobe stay, byte for byte', async () => {
    const base = await jpeg(64, 48);
    const [exif, icc] = [await exifApp1(base), await iccApp2(base)];
    const maker = jpegSegment(0xe9, Buffer.from('MakerCo serial 12345', 'latin1'));
    const received = withJpegSegments(base, exif, icc, xmpApp1(), adobeApp14(), iptcApp13(), mpfApp2(), maker, jpegComment('Jane Doe was here'));
    const { bytes, removed } = stripJpeg(received);
    expect(bytes.equals(withJpegSegments(base, icc, adobeApp14()))).toBe(true);
    expect(removed).toEqual(
      expect.arrayContaining([
        { what: 'APP1', count: 2, bytes: exif.length + xmpApp1().length },
        { what: 'APP13', count: 1, bytes: iptcApp13().length },
        { what: 'APP2', count: 1, bytes: mpfApp2().length },
        { what: 'APP9', count: 1, bytes: maker.length },
        { what: 'COM', count: 1, bytes: jpegComment('Jane Doe was here').length },
      ])
    );
    expect(removed).toHaveLength(5);
    for (const needle of ['Exif', 'Jane Doe', 'PhoneCo', 'xmpmeta', 'Photoshop', 'MPF', 'MakerCo']) expect(holds(bytes, needle)).toBe(false);
    expect(await pixels(bytes)).toBe(await pixels(received));
    expect((await sharp(bytes).metadata()).icc).toBeDefined();
  });

  test('an EXIF thumbnail (a JPEG with its own EOI inside APP1) does not end the image', async () => {
    const base = await jpeg(32, 32);
    const thumb = await jpeg(8, 8);
    const received = withJpegSegments(base, jpegSegment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), thumb])));
    expect(stripJpeg(received).bytes.equals(base)).toBe(true);
  });

  test.each([
    ['a motion photo: the video after EOI', async (image: Buffer) => Buffer.concat([image, motionPhotoVideo()])],
    ['an MPO: a second picture with its own EXIF', async (image: Buffer) => Buffer.concat([image, withJpegSegments(await jpeg(16, 16), await exifApp1(image))])],
    ['an appended payload holding EOI markers', async (image: Buffer) => Buffer.concat([image, Buffer.from([0xff, 0xd9, 0xff, 0xd9]), Buffer.from(GPS_TEXT)])],
  ])('%s is dropped: the file ends at its true EOI', async (_label, append) => {
    for (const image of [await jpeg(120, 80), await sharp(await jpeg(120, 80)).jpeg({ progressive: true }).toBuffer()]) {
      const received = await append(image);
      const { bytes, removed } = stripJpeg(received);
      expect(bytes.equals(image)).toBe(true);
      expect(removed).toEqual([{ what: 'after EOI', count: 1, bytes: received.length - image.length }]);
    }
  });

  test('in scan data, stuffed 0xFF00, restarts and fill bytes are data; the next marker ends the scan', () => {
    const sos = jpegSegment(0xda, Buffer.from([1, 1, 0, 0, 63, 0]));
    const scan = Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56, 0xff, 0xff, 0xd5, 0x78]);
    const image = Buffer.concat([Buffer.from([0xff, 0xd8]), jpegSegment(0xdb, Buffer.alloc(65)), sos, scan, sos, scan, Buffer.from([0xff, 0xff, 0xd9])]);
    const received = Buffer.concat([image, jpegComment(GPS_TEXT), Buffer.from([0xff, 0xd9])]);
    expect(stripJpeg(received).bytes.equals(image)).toBe(true);
  });

  test('a probe (write false) tallies the same and copies nothing', async () => {
    const received = Buffer.concat([withJpegSegments(await jpeg(16, 16), xmpApp1()), motionPhotoVideo()]);
    const probe = stripJpeg(received, false);
    expect(probe.bytes).toBe(received);
    expect(probe.removed).toEqual(stripJpeg(received).removed);
  });
});

describe('stripJpeg on hostile input: 400/311 or a result, in linear time', () => {
  const truncated = { status: 400, code: 311, message: 'Invalid image: truncated' };

  test.each([
    ['cut inside the scan (no EOI)', (image: Buffer) => image.subarray(0, image.length - 40)],
    ['cut inside a segment header', (image: Buffer) => image.subarray(0, 5)],
    ['a segment length past the end', (image: Buffer) => withJpegSegments(image.subarray(0, 30), Buffer.from([0xff, 0xe1, 0xff, 0xff, 1, 2]))],
    ['only fill bytes after SOI', () => Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(1000, 0xff)])],
  ])('%s', async (_label, cut) => {
    expect(outcome(stripJpeg, cut(await jpeg(64, 48)))).toEqual(truncated);
  });

  test.each([
    ['bytes where a marker must be', (image: Buffer) => Buffer.concat([image.subarray(0, 2), Buffer.from('junk'), image.subarray(2)]), 'bytes between segments'],
    ['a segment length under 2', (image: Buffer) => withJpegSegments(image, Buffer.from([0xff, 0xe1, 0, 1])), 'segment length'],
    ['a second SOI', (image: Buffer) => withJpegSegments(image, Buffer.from([0xff, 0xd8])), 'misplaced marker'],
  ])('%s', async (_label, make, detail) => {
    expect(outcome(stripJpeg, make(await jpeg(64, 48)))).toEqual({ status: 400, code: 311, message: `Invalid image: ${detail}` });
  });

  test('200,000 COM segments: one tally entry, linear time, the picture intact', async () => {
    const base = await jpeg(32, 32);
    const received = withJpegSegments(base, Buffer.concat(Array(200_000).fill(jpegComment('x'))));
    let stripped: ReturnType<typeof stripJpeg> | undefined;
    stripped = stripJpeg(received);
    expect(stripped!.bytes.equals(base)).toBe(true);
    expect(stripped!.removed).toEqual([{ what: 'COM', count: 200_000, bytes: 200_000 * 5 }]);
  });

  test('a scan of 8 MB of stuffed bytes and restarts: linear time', () => {
    const scan = Buffer.alloc(8 << 20);
    for (let at = 0; at < scan.length; at += 4) scan.set([0xff, 0x00, 0xff, 0xd0 + ((at >> 2) & 7)], at);
    const image = Buffer.concat([Buffer.from([0xff, 0xd8]), jpegSegment(0xda, Buffer.alloc(6)), scan, Buffer.from([0xff, 0xd9])]);
    const received = Buffer.concat([image, Buffer.from(GPS_TEXT)]);
    let out: Buffer | undefined;
    out = stripJpeg(received).bytes;
    expect(out!.equals(image)).toBe(true);
  });

  test('mutated files: a result no larger than the input, or 400/311, never another error', async () => {
    const received = Buffer.concat([withJpegSegments(await jpeg(48, 32), xmpApp1(), jpegComment('hello')), motionPhotoVideo()]);
    expectOnlyRefusals(stripJpeg, received);
  });
});
