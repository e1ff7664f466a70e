import sharp from 'sharp';
import { probeImage, sniffType } from '../../server/src/images/image-probe';
import { IMAGE_TYPES } from '../../server/src/config';
import { bmp, gif, html, jpeg, pdf, png, randomBytes, svg, tiff, webp, animated, rotatedJpeg, pixels, PERSONAL_EXIF } from '../../../../tests/helpers/fixtures';
import {
  GPS_TEXT, gifComment, gifXmp, jpegComment, motionPhotoVideo, tEXt, withGifBlocks, withJpegSegments, withPngChunks, xmpPacket,
} from '../../../../tests/helpers/metadata-fixtures';
import { refusal } from '../refusal';
import { heic, heicBomb } from '../../../../tools/support/images/heif';
import { animatedGif } from '../../../../tools/support/images/gif';
import { animatedWebp } from '../../../../tools/support/images/webp';

const LIMITS = { maxPixels: 1e8, maxAnimationFrames: 500, maxAnimationPixels: 20_000_000 };


describe('sniffType: the bytes decide', () => {
  test.each([
    ['jpeg', () => jpeg(8, 8)], ['png', () => png(8, 8)], ['gif', () => gif(8, 8)], ['webp', () => webp(8, 8)], ['bmp', async () => bmp(8, 8)],
  ])('%s', async (type, make) => {
    expect(await sniffType(await make(), IMAGE_TYPES)).toBe(type);
  });

  test.each([
    ['svg', svg], ['svg without prolog', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['svg after a comment', Buffer.from('\uFEFF<!-- x --><svg></svg>')],
  ])('%s: 415/314 (svg)', async (_label, bytes) => {
    expect(await refusal(sniffType(bytes, IMAGE_TYPES))).toEqual({ status: 415, code: 314, message: 'Disabled image format (svg): this service accepts jpg, png, gif, webp, bmp, heic, avif' });
  });

  test('TIFF is an image we do not take: 415/314', async () => {
    expect(await refusal(sniffType(await tiff(), IMAGE_TYPES))).toMatchObject({ code: 314, message: 'Disabled image format (tif): this service accepts jpg, png, gif, webp, bmp, heic, avif' });
  });

  test('HEIF by its brands: AVIF (even under the major brand mif1), HEIC; other HEIF 415/314; left out of allowedTypes 415/314', async () => {
    const avif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } }).avif().toBuffer();
    expect(await sniffType(avif, IMAGE_TYPES)).toBe('avif');
    const mif1Major = Buffer.from(avif);
    mif1Major.write('mif1', 8, 'latin1');
    expect(await sniffType(mif1Major, IMAGE_TYPES)).toBe('avif');
    const phone = await heic({ width: 600, height: 400 });
    expect(await sniffType(phone, IMAGE_TYPES)).toBe('heic');
    // A HEIF whose brands name neither codec (JPEG-coded HEIF, say).
    const other = Buffer.from(phone);
    for (let at = 8; at < other.readUInt32BE(0); at += 4) if (at !== 12) other.write('mif1', at, 'latin1');
    expect(await refusal(sniffType(other, IMAGE_TYPES))).toEqual({ status: 415, code: 314, message: 'Disabled image format (heif): this service accepts jpg, png, gif, webp, bmp, heic, avif' });
    expect(await refusal(sniffType(phone, ['jpeg']))).toEqual({ status: 415, code: 314, message: 'Disabled image format (heic): this service accepts jpg' });
    expect(await refusal(sniffType(avif, ['jpeg']))).toEqual({ status: 415, code: 314, message: 'Disabled image format (avif): this service accepts jpg' });
  });

  test.each([['HTML', html], ['PDF', pdf], ['random', randomBytes(300)], ['empty', Buffer.alloc(0)], ['XML', Buffer.from('<?xml version="1.0"?><root/>')]])(
    '%s: 400/310',
    async (_label, bytes) => {
      expect(await refusal(sniffType(bytes, IMAGE_TYPES))).toMatchObject({ status: 400, code: 310 });
    }
  );

  // They answered 500 with a stack trace in the log (issue 23, item 7).
  test('a TIFF or JPEG 2000 header cut short: 400/311, not a crash of the sniffer', async () => {
    const jp2 = Buffer.from('0000000C6A5020200D0A870A00000014667479706A703220', 'hex');
    for (const bytes of [(await tiff()).subarray(0, 10), jp2.subarray(0, 20), Buffer.from('II*\0')]) {
      expect(await refusal(sniffType(bytes, IMAGE_TYPES))).toEqual({ status: 400, code: 311, message: 'Invalid image: truncated header' });
    }
  });

  test('a name or a header never matters: a PNG is a PNG', async () => {
    expect(await sniffType(await png(4, 4), ['png'])).toBe('png');
  });
});

describe('probeImage', () => {
  test('dimensions after orientation, frames, bits, channels', async () => {
    expect(await probeImage(await rotatedJpeg(), IMAGE_TYPES, LIMITS)).toMatchObject({ type: 'jpeg', width: 200, height: 300, orientation: 6, pages: 1 });
    expect(await probeImage(await animated(30, 20, 3), IMAGE_TYPES, LIMITS)).toMatchObject({ type: 'gif', width: 30, height: 20, pages: 3 });
    expect(await probeImage(await png(5, 4, true), IMAGE_TYPES, LIMITS)).toMatchObject({ type: 'png', bits: 8, channels: 4 });
    expect(await probeImage(bmp(7, 3), IMAGE_TYPES, LIMITS)).toMatchObject({ type: 'bmp', width: 7, height: 3 });
  });

  test('HEIC: the grid\'s size after its rotation, read from the header', async () => {
    const phone = await heic({ width: 1100, height: 700, rotate: 1 });
    expect(await probeImage(phone, IMAGE_TYPES, LIMITS)).toMatchObject({ type: 'heic', width: 700, height: 1100, pages: 1, orientation: 1 });
  });

  test('a HEIC bomb (one small tile repeated into 236 MP) is refused from its header (no decoder ever sees it)', async () => {
    const bomb = await heicBomb(30, 30);
    expect(bomb.length).toBeLessThan(200_000);
    expect(await refusal(probeImage(bomb, IMAGE_TYPES, LIMITS))).toMatchObject({ status: 413, code: 315 });
  });

  test('an animation: each frame within maxPixels, its frames within maxAnimationFrames, all their pixels within maxAnimationPixels', async () => {
    const anim = await animated(30, 20, 3);
    expect(await probeImage(anim, IMAGE_TYPES, { maxPixels: 600, maxAnimationFrames: 3, maxAnimationPixels: 1800 })).toMatchObject({ pages: 3 });
    expect(await refusal(probeImage(anim, IMAGE_TYPES, { maxPixels: 599, maxAnimationFrames: 3, maxAnimationPixels: 1800 }))).toEqual({
      status: 413, code: 315, message: 'Image too large - max 0.001 megapixels',
    });
    expect(await refusal(probeImage(anim, IMAGE_TYPES, { maxPixels: 600, maxAnimationFrames: 2, maxAnimationPixels: 1800 }))).toEqual({
      status: 413, code: 315, message: 'Animation too long - max 2 frames',
    });
    expect(await refusal(probeImage(anim, IMAGE_TYPES, { maxPixels: 600, maxAnimationFrames: 3, maxAnimationPixels: 1799 }))).toEqual({
      status: 413, code: 315, message: 'Animation too large - max 0.002 megapixels in all its frames',
    });
  });

  test.each(['gif', 'webp'] as const)('a %s of more frames than allowed is refused from its container alone, before libvips reads its header', async (type) => {
    const many = type === 'gif' ? animatedGif({ width: 2, height: 2, frames: 501 }) : await animatedWebp({ width: 2, height: 2, frames: 501 });
    expect(await refusal(probeImage(many, IMAGE_TYPES, LIMITS))).toEqual({ status: 413, code: 315, message: 'Animation too long - max 500 frames' });
    // A header libvips cannot read (the GIF's first frame of 65535² with the data of 2×2, a WebP canvas
    // past WebP's 16383²) gets the same answer: the frames were counted first. With one frame more
    // allowed, libvips reads the header, and refuses it.
    const unreadable = Buffer.from(many);
    if (type === 'gif') unreadable.fill(0xff, 13 + 768 + 19 + 8 + 5, 13 + 768 + 19 + 8 + 9);
    else unreadable.fill(0xff, 24, 30);
    expect(await refusal(probeImage(unreadable, IMAGE_TYPES, LIMITS))).toEqual({ status: 413, code: 315, message: 'Animation too long - max 500 frames' });
    expect(await refusal(probeImage(unreadable, IMAGE_TYPES, { ...LIMITS, maxAnimationFrames: 501 }))).toEqual({ status: 400, code: 311, message: 'Invalid image' });
  });

  test('a BMP header claiming huge dimensions is refused before decoding', async () => {
    const header = bmp(2, 2);
    header.writeInt32LE(100_000, 18);
    header.writeInt32LE(-100_000, 22);
    expect(await refusal(probeImage(header, IMAGE_TYPES, LIMITS))).toMatchObject({ status: 413, code: 315 });
  });

  test('a header with zero dimensions is an invalid image', async () => {
    const header = bmp(2, 2);
    header.writeInt32LE(0, 18);
    expect(await refusal(probeImage(header, IMAGE_TYPES, LIMITS))).toMatchObject({ status: 400, code: 311 });
  });
});

describe('a GIF must end with its trailer', () => {
  test('an animation cut inside a later frame: 400/311', async () => {
    const anim = await animated(60, 40, 4);
    // Cut inside the third frame's data: libvips alone reads this without a warning.
    const cut = anim.subarray(0, Math.floor(anim.length * 0.7));
    expect(await refusal(probeImage(cut, IMAGE_TYPES, LIMITS))).toEqual({ status: 400, code: 311, message: 'Invalid image: truncated' });
    expect(await refusal(probeImage(anim.subarray(0, anim.length - 1), IMAGE_TYPES, LIMITS))).toMatchObject({ code: 311 });
  });
  test('a whole GIF passes', async () => {
    expect(await probeImage(await gif(8, 8), IMAGE_TYPES, LIMITS)).toMatchObject({ type: 'gif' });
  });
});

describe('hasMetadata: what the container holds, not what libvips reports', () => {
  test.each([
    ['a plain JPEG', () => jpeg(16, 16), false],
    ['a JPEG with a comment', async () => withJpegSegments(await jpeg(16, 16), jpegComment('Jane Doe')), true],
    ['a JPEG followed by a video', async () => Buffer.concat([await jpeg(16, 16), motionPhotoVideo()]), true],
    ['a plain PNG', () => png(16, 16), false],
    ['a PNG with a tEXt chunk', async () => withPngChunks(await png(16, 16), tEXt('Comment', GPS_TEXT)), true],
    ['a plain GIF', () => gif(16, 16), false],
    ['a GIF with a comment', async () => withGifBlocks(await gif(16, 16), gifComment(GPS_TEXT)), true],
    ['a GIF with XMP', async () => withGifBlocks(await gif(16, 16), gifXmp()), true],
    ['a plain WebP', () => webp(16, 16), false],
    ['a WebP with EXIF', () => sharp(pixels(16, 16), { raw: { width: 16, height: 16, channels: 3 } }).webp().withExif(PERSONAL_EXIF).toBuffer(), true],
    ['a plain AVIF', () => sharp(pixels(16, 16), { raw: { width: 16, height: 16, channels: 3 } }).avif().toBuffer(), false],
    ['an AVIF with XMP', () => sharp(pixels(16, 16), { raw: { width: 16, height: 16, channels: 3 } }).avif().withXmp(xmpPacket().toString('utf8')).toBuffer(), true],
    ['a BMP', async () => bmp(8, 8), false],
  ])('%s: %s', async (_label, make, expected) => {
    const bytes = await make();
    expect((await probeImage(bytes, IMAGE_TYPES, LIMITS)).hasMetadata).toBe(expected);
  });

  test('a structure that cannot be walked is refused (400/311), as the decoder would', async () => {
    const image = await jpeg(16, 16);
    // After the JFIF segment (file-type recognises the JPEG by its first three bytes), before the tables.
    const at = 4 + image.readUInt16BE(4);
    const junk = Buffer.concat([image.subarray(0, at), Buffer.from('junk'), image.subarray(at)]);
    expect(await refusal(probeImage(junk, IMAGE_TYPES, LIMITS))).toEqual({ status: 400, code: 311, message: 'Invalid image: bytes between segments' });
  });
});
