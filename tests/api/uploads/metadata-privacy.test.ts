/** GPS and other personal metadata never reach a stored file, unless the operator keeps it. */
import exifr from 'exifr';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { animated, gif, jpeg, png, PERSONAL_EXIF, webp, withPersonalExif } from '../../helpers/fixtures';
import { binaryParser, expectServedFiles } from '../../helpers/image-json';
import {
  GPS_TEXT, gifComment, gifXmp, holds, jpegSegment, motionPhotoVideo, pngChunkList, rawProfileExif, tEXt, tiffWithText,
  webpChunkList, withGifBlocks, withJpegSegments, withPngChunks, xmpPacket,
} from '../../helpers/metadata-fixtures';

const app = useApp();

const upload = (bytes: Buffer, filename: string) => app.upload(app.key, bytes, { filename });
const fetchBytes = async (url: string): Promise<Buffer> => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body;
const pixels = async (bytes: Buffer) => (await sharp(bytes).raw().toBuffer()).toString('base64');

async function expectNoPersonalMetadata(bytes: Buffer) {
  const meta = await sharp(bytes).metadata();
  expect(meta.exif).toBeUndefined();
  expect(meta.xmp).toBeUndefined();
  expect(meta.iptc).toBeUndefined();
  expect(bytes.includes(Buffer.from('Jane Doe'))).toBe(false);
  expect(bytes.includes(Buffer.from('PhoneCo'))).toBe(false);
}

describe('by default, metadata is removed from every stored file', () => {
  test.each(['jpeg', 'png', 'webp'] as const)('%s', async (format) => {
    const received = await withPersonalExif(format);
    expect(await sharp(received).metadata()).toHaveProperty('exif');
    const res = await upload(received, `photo.${format}`);
    expect(res.status).toBe(200);
    expect(res.body.image.original_exifdata).toBeNull();
    for (const url of [res.body.image.url, res.body.image.thumb.url, res.body.image.medium.url]) {
      await expectNoPersonalMetadata(await fetchBytes(url));
    }
    const stored = await fetchBytes(res.body.image.url);
    expect(stored.length).toBe(res.body.image.size);
    // Cleaned losslessly: the same pixels, a few bytes less.
    expect(await pixels(stored)).toBe(await pixels(received));
    expect(stored.length).toBeLessThan(received.length);
  });

  test('a rotated photo with GPS: upright, and no GPS', async () => {
    const received = await sharp(await jpeg(300, 200)).withMetadata({ orientation: 6 }).withExifMerge(PERSONAL_EXIF).toBuffer();
    expect(received.includes(Buffer.from('Jane Doe'))).toBe(true);
    expect((await sharp(received).metadata()).orientation).toBe(6);
    const res = await upload(received, 'rotated.jpg');
    expect([res.body.image.width, res.body.image.height]).toEqual([200, 300]);
    const stored = await fetchBytes(res.body.image.url);
    await expectNoPersonalMetadata(stored);
    expect([(await sharp(stored).metadata()).width, (await sharp(stored).metadata()).height]).toEqual([200, 300]);
  });

  test.each([
    ['jpg', () => jpeg(200, 100)],
    ['png', () => png(60, 40, true)],
    ['gif', () => gif(60, 40)],
    ['gif', () => animated(30, 20, 3)],
    ['webp', () => webp(60, 40)],
  ])('an image without metadata is stored byte for byte (%s)', async (extension, make) => {
    const received = await make();
    const res = await upload(received, `plain.${extension}`);
    expect(res.status).toBe(200);
    expect((await fetchBytes(res.body.image.url)).equals(received)).toBe(true);
  });
});

/** The upload's three files, read back as a client would (md5 and size checked against the JSON). */
async function storedFiles(received: Buffer, filename: string) {
  const res = await upload(received, filename);
  expect(res.status).toBe(200);
  const original = await expectServedFiles(app, res.body.image);
  const [thumb, medium] = [await fetchBytes(res.body.image.thumb.url), await fetchBytes(res.body.image.medium.url)];
  return { image: res.body.image, original, thumb, medium };
}

/** None of `needles` in any of the stored files. */
function expectNoneOf(files: Buffer[], needles: Array<string | Buffer>) {
  for (const file of files) for (const needle of needles) expect([needle, holds(file, needle)]).toEqual([needle, false]);
}

/** An APP1 segment with the EXIF sharp writes (GPS, camera, artist). */
async function exifSegment(): Promise<Buffer> {
  const withExif = await withPersonalExif('jpeg', 16, 16);
  const at = withExif.indexOf(Buffer.from('Exif\0\0', 'latin1')) - 4;
  return withExif.subarray(at, at + 2 + withExif.readUInt16BE(at + 2));
}

describe('what libvips does not report is found in the file and removed, losslessly', () => {
  const XMP_NEEDLES = ['XMP DataXMP', 'xmpmeta', 'http://ns.adobe.com', 'GPS', 'Jane Doe'];

  test('a GIF with XMP (its GPS position) and a comment: stored as the same GIF without them', async () => {
    const base = await animated(40, 30, 3);
    const received = withGifBlocks(base, gifComment(`Taken by Jane Doe, ${GPS_TEXT}`), gifXmp());
    expect((await sharp(received).metadata()).xmp).toBeUndefined();
    const { original, thumb, medium, image } = await storedFiles(received, 'xmp.gif');
    expect(original.equals(base)).toBe(true);
    expect(image.size).toBe(base.length);
    expectNoneOf([original, thumb, medium], XMP_NEEDLES);
  });

  test('a PNG with ImageMagick\'s zTXt "Raw profile type exif" (GPS) and a tEXt comment: stored without them', async () => {
    const base = await png(60, 40);
    const received = withPngChunks(base, rawProfileExif(tiffWithText('Jane Doe', GPS_TEXT)), tEXt('Comment', `Home, ${GPS_TEXT}`));
    const { original, thumb, medium } = await storedFiles(received, 'profile.png');
    expect(original.equals(base)).toBe(true);
    expect(pngChunkList(original).map((chunk) => chunk.type)).toEqual(pngChunkList(base).map((chunk) => chunk.type));
    expectNoneOf([original, thumb, medium], ['zTXt', 'tEXt', 'Raw profile', 'GPS', 'Home']);
  });

  test('a motion photo (a JPEG with EXIF, then an MP4 with a GPS atom): stored as the picture alone', async () => {
    const base = await jpeg(120, 80);
    const video = motionPhotoVideo();
    const received = Buffer.concat([withJpegSegments(base, await exifSegment()), video]);
    const { original, thumb, medium } = await storedFiles(received, 'motion.jpg');
    expect(original.equals(base)).toBe(true);
    expectNoneOf([original, thumb, medium], ['Exif', 'ftyp', 'GPS', 'PhoneCo', video.subarray(8, 40)]);
  });

  test('an MPO-style file (a second JPEG with its own EXIF and GPS after EOI): stored as the first picture alone', async () => {
    const base = await jpeg(120, 80);
    const second = await withPersonalExif('jpeg', 60, 40);
    const received = Buffer.concat([withJpegSegments(base, jpegSegment(0xe2, Buffer.from('MPF\0MM\0\x2a', 'latin1'))), second]);
    const { original, thumb, medium } = await storedFiles(received, 'mpo.jpg');
    expect(original.equals(base)).toBe(true);
    expectNoneOf([original, thumb, medium], ['Exif', 'MPF', 'Jane Doe', 'PhoneCo', second.subarray(second.length - 64)]);
  });

  test('a lossless WebP with EXIF stays lossless: its VP8L chunk byte for byte, and smaller', async () => {
    const received = await sharp(await png(80, 60)).webp({ lossless: true }).withExif(PERSONAL_EXIF).toBuffer();
    const { original, thumb, medium, image } = await storedFiles(received, 'lossless.webp');
    expect(webpChunkList(original).map((chunk) => chunk.type)).toEqual(['VP8X', 'VP8L']);
    const vp8l = (file: Buffer) => webpChunkList(file).find((chunk) => chunk.type === 'VP8L')!.bytes;
    expect(vp8l(original).equals(vp8l(received))).toBe(true);
    expect(image.size).toBeLessThan(received.length);
    expect(await pixels(original)).toBe(await pixels(received));
    expectNoneOf([original, thumb, medium], ['EXIF', 'Exif', 'Jane Doe', 'PhoneCo']);
  });

  test.each([
    ['with EXIF, as exiftool writes it', true],
    ['without metadata', false],
  ])('a WebP with alpha whose VP8X alpha flag is 0 (%s): transparent in the original, .md and .th', async (_label, withExif) => {
    // Left half transparent, right half opaque red.
    const px = Buffer.alloc(64 * 64 * 4);
    for (let i = 0; i < 64 * 64; i++) px.set(i % 64 < 32 ? [0, 0, 0, 0] : [220, 20, 20, 255], i * 4);
    const encoder = sharp(px, { raw: { width: 64, height: 64, channels: 4 } }).webp({ lossless: true }).withIccProfile('srgb');
    const received = Buffer.from(await (withExif ? encoder.withExif(PERSONAL_EXIF) : encoder).toBuffer());
    received[20] &= ~0x10;
    expect((await sharp(received).metadata()).hasAlpha).toBe(false);
    const { original, thumb, medium, image } = await storedFiles(received, 'alpha.webp');
    expect(original[20] & 0x10).toBe(0x10);
    expect([image.channels, image.medium.channels, image.thumb.channels]).toEqual([4, 4, 4]);
    for (const file of [original, medium, thumb]) {
      const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(4);
      const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
      expect(at(0, info.height >> 1)[3]).toBe(0);
      // Variants are lossy WebP: the red within a few levels.
      const red = at(info.width - 1, info.height >> 1);
      expect(red[3]).toBe(255);
      expect(Math.max(...[220, 20, 20].map((value, i) => Math.abs(red[i] - value)))).toBeLessThanOrEqual(8);
    }
    if (withExif) expectNoneOf([original], ['EXIF', 'Jane Doe']);
  });

  test('an AVIF with EXIF and XMP items: re-encoded without either', async () => {
    const received = await sharp(await png(64, 48)).avif().withExif(PERSONAL_EXIF).withXmp(xmpPacket().toString('utf8')).toBuffer();
    expect(holds(received, 'Exif') && holds(received, 'xmpmeta')).toBe(true);
    const { original, thumb, medium, image } = await storedFiles(received, 'meta.avif');
    expect(image.extension).toBe('avif');
    expectNoneOf([original, thumb, medium], ['Exif', 'xmpmeta', 'application/rdf+xml', 'Jane Doe', 'PhoneCo']);
  });
});

describe('keepExif keeps it, and reports what was received', () => {
  beforeAll(() => app.strapi.config.set('plugin::image-api.keepExif', true));
  afterAll(() => app.strapi.config.set('plugin::image-api.keepExif', false));

  test('original_exifdata has the GPS position and camera; the stored original keeps them', async () => {
    const received = await withPersonalExif('jpeg');
    const res = await upload(received, 'kept.jpg');
    expect(res.status).toBe(200);
    const exif = res.body.image.original_exifdata;
    expect(exif).toMatchObject({ Make: 'PhoneCo', Model: 'Phone 9', Artist: 'Jane Doe' });
    expect(exif.latitude).toBeCloseTo(48.8582, 3);
    expect(exif.longitude).toBeCloseTo(2.2945, 3);
    const stored = await fetchBytes(res.body.image.url);
    expect(stored.equals(received)).toBe(true);
    expect((await exifr.gps(stored)).latitude).toBeCloseTo(48.8582, 3);
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: res.body.image.id_encoded } });
    expect(record.original_exifdata).toMatchObject({ Artist: 'Jane Doe' });
  });

  test('everything stays: comments, XMP and what follows EOI too', async () => {
    const received = Buffer.concat([withJpegSegments(await jpeg(40, 30), await exifSegment()), motionPhotoVideo()]);
    const res = await upload(received, 'kept-motion.jpg');
    expect((await fetchBytes(res.body.image.url)).equals(received)).toBe(true);
    const gifReceived = withGifBlocks(await gif(20, 20), gifComment(GPS_TEXT), gifXmp());
    const gifRes = await upload(gifReceived, 'kept.gif');
    expect((await fetchBytes(gifRes.body.image.url)).equals(gifReceived)).toBe(true);
  });

  test('an image without EXIF reports null', async () => {
    const res = await upload(await jpeg(50, 50), 'none.jpg');
    expect(res.body.image.original_exifdata).toBeNull();
  });
});
