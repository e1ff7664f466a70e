/**
 * The byte readers the corpus test judges the service with (tests/helpers/metadata-scan.ts), checked
 * on files made by hand here, byte by byte: a checker that misreads would pass what it should fail.
 * And the corpus (tools/support/images/corpus.js) read by them: each entry holds what its truth says.
 * No app: these are the helpers' own tests.
 */
import zlib from 'zlib';
import { forbiddenMetadata, iccDescription, scanImage, type ImageScan } from '../../helpers/metadata-scan';
import { corpusCases, corpusEntry, exifTiff, iccProfile } from '../../../tools/support/images/corpus';

const u16 = (v: number) => Buffer.from([v >> 8, v & 0xff]);
const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
};
const le16 = (v: number) => Buffer.from([v & 0xff, v >> 8]);
const le24 = (v: number) => Buffer.from([v & 0xff, (v >> 8) & 0xff, v >> 16]);
const le32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
};
const text = (s: string) => Buffer.from(s, 'latin1');

/** Every prefix and a few damaged copies: read without an exception, to an end. */
function expectSturdy(file: Buffer) {
  const damaged = [file.subarray(0, 1), file.subarray(0, 7)];
  for (let cut = 0; cut < file.length; cut += Math.max(1, Math.floor(file.length / 97))) damaged.push(file.subarray(0, cut));
  // Lengths and counts that lie: all ones, zeros, and a small size (boxes and chunks too short for their fields).
  for (let at = 4; at < file.length; at += Math.max(1, Math.floor(file.length / 61))) {
    for (const lie of [[0xff, 0xff, 0xff, 0xff], [0, 0, 0, 0], [0, 0, 0, 9], [9, 0, 0, 0]]) {
      const lying = Buffer.from(file);
      Buffer.from(lie).copy(lying, at);
      damaged.push(lying);
    }
  }
  for (const bytes of damaged) {
    const scan = scanImage(bytes);
    expect(scan.problems.filter((problem) => problem.startsWith('scanner error'))).toEqual([]);
  }
}

describe('JPEG: segments walked, the scan read to the true end-of-image', () => {
  const seg = (marker: number, payload: Buffer) => Buffer.concat([Buffer.from([0xff, marker]), u16(payload.length + 2), payload]);
  const sof = seg(0xc0, Buffer.from([8, 0, 48, 0, 64, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]));
  const dqt = seg(0xdb, Buffer.alloc(65, 1));
  const sos = seg(0xda, Buffer.from([3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]));
  // Entropy-coded data holding a stuffed 0xFF00, a restart marker and fill bytes before EOI.
  const entropy = Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56, 0xff, 0xff]);
  const eoi = Buffer.from([0xff, 0xd9]);
  // An EXIF block holding a thumbnail: a whole JPEG, its own EOI included, inside APP1.
  const thumbnail = Buffer.concat([Buffer.from([0xff, 0xd8]), dqt, eoi]);
  const exif = seg(0xe1, Buffer.concat([text('Exif\0\0'), exifTiff(), thumbnail]));
  const icc = iccProfile('p3', 'Display P3 (scan test)');
  const iccPart = (sequence: number, data: Buffer) => seg(0xe2, Buffer.concat([text('ICC_PROFILE\0'), Buffer.from([sequence, 2]), data]));
  const picture = Buffer.concat([dqt, sof, sos, entropy, eoi]);
  const file = Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    seg(0xe0, text('JFIF\0\x01\x02\0\0\x01\0\x01\0\0')),
    exif,
    // The profile in two parts, the second first.
    iccPart(2, icc.subarray(200)),
    iccPart(1, icc.subarray(0, 200)),
    seg(0xe1, text('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>')),
    seg(0xed, text('Photoshop 3.0\x008BIM')),
    seg(0xe2, text('MPF\0II*\0')),
    seg(0xeb, text('JP\0\0')),
    seg(0xee, text('Adobe\0\x64\0\0\0\0\x01')),
    seg(0xfe, text('Jane Doe')),
    picture,
    text('ftypmp42 GPS +48.8584+002.2945'),
  ]);

  let scan: ImageScan;
  beforeAll(() => {
    scan = scanImage(file);
  });

  test('every application segment and comment, named by its identifier', () => {
    expect(scan.parts).toEqual([
      'APP0 JFIF', 'APP1 Exif', 'APP2 ICC_PROFILE', 'APP2 ICC_PROFILE', 'APP1 XMP', 'APP13 Photoshop', 'APP2 MPF', 'APP11 JP', 'APP14 Adobe', 'COM', 'SOF0', 'SOS',
    ]);
    expect(scan.problems).toEqual([]);
  });

  test('what is personal: EXIF, XMP, IPTC, MPF, other APPn, comments, and the bytes after the EOI (not the one in the thumbnail)', () => {
    expect(scan.trailing).toBe(30);
    expect(scan.personal).toEqual(['APP1 Exif', 'APP1 XMP', 'APP13 Photoshop', 'APP2 MPF', 'APP11 JP', 'COM', '30 bytes after the end']);
    expect(forbiddenMetadata(file)).toEqual(scan.personal);
  });

  test('the frame header: size, bits, components; the ICC profile put back in order', () => {
    expect([scan.width, scan.height, scan.bits, scan.channels]).toEqual([64, 48, 8, 3]);
    expect(scan.icc?.equals(icc)).toBe(true);
  });

  test('the coded picture is the same whatever metadata surrounds it', () => {
    const bare = Buffer.concat([Buffer.from([0xff, 0xd8]), picture]);
    const bareScan = scanImage(bare);
    expect(bareScan.personal).toEqual([]);
    expect(bareScan.imageData.equals(scan.imageData)).toBe(true);
    expect(bareScan.imageData.equals(bare)).toBe(true);
    // A re-encoded picture is not.
    const other = Buffer.concat([Buffer.from([0xff, 0xd8]), dqt, sof, sos, Buffer.from([0x13]), eoi]);
    expect(scanImage(other).imageData.equals(scan.imageData)).toBe(false);
  });

  test('a segment whose length runs past the file, a file without EOI: noted, no exception', () => {
    const lying = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.from([0xff, 0xe1, 0xff, 0xf0]), text('Exif\0\0')]);
    const cut = scanImage(lying);
    expect(cut.problems).toEqual(['segment 0xe1 at 2 says 65520 bytes, past the file', 'no end-of-image marker']);
    expect(cut.trailing).toBe(0);
    expect(scanImage(file.subarray(0, file.length - 40)).problems).toEqual(['no end-of-image marker']);
    expectSturdy(file);
  });
});

describe('PNG: chunks, text keywords, animation', () => {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([text(type), data]);
    return Buffer.concat([u32(data.length), typed, u32(zlib.crc32(typed))]);
  };
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = (depth: number, colourType: number) => chunk('IHDR', Buffer.concat([u32(20), u32(10), Buffer.from([depth, colourType, 0, 0, 0])]));
  const idat = chunk('IDAT', zlib.deflateSync(Buffer.alloc(11 * 10)));
  const icc = iccProfile('adobe', 'Adobe RGB (scan test)');
  const fctl = (sequence: number, numerator: number, denominator: number) =>
    chunk('fcTL', Buffer.concat([u32(sequence), u32(20), u32(10), u32(0), u32(0), u16(numerator), u16(denominator), Buffer.from([0, 0])]));
  const file = Buffer.concat([
    signature,
    ihdr(4, 3),
    chunk('iCCP', Buffer.concat([text('icc\0\0'), zlib.deflateSync(icc)])),
    chunk('PLTE', Buffer.alloc(12)),
    chunk('tRNS', Buffer.from([0])),
    chunk('tEXt', text('Comment\0Jane Doe')),
    chunk('zTXt', Buffer.concat([text('Raw profile type exif\0\0'), zlib.deflateSync(text('\nexif\n   10\n45786966'))])),
    chunk('iTXt', text('XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta/>')),
    chunk('eXIf', exifTiff()),
    chunk('tIME', Buffer.alloc(7)),
    chunk('acTL', Buffer.concat([u32(2), u32(7)])),
    fctl(0, 15, 0),
    idat,
    fctl(1, 1, 4),
    chunk('fdAT', Buffer.concat([u32(2), zlib.deflateSync(Buffer.alloc(110))])),
    chunk('IEND', Buffer.alloc(0)),
    text('GPS'),
  ]);

  test('chunks in order, text chunks by keyword; personal: text, eXIf and what follows IEND', () => {
    const scan = scanImage(file);
    expect(scan.parts).toEqual([
      'IHDR', 'iCCP', 'PLTE', 'tRNS', 'tEXt Comment', 'zTXt Raw profile type exif', 'iTXt XML:com.adobe.xmp', 'eXIf', 'tIME', 'acTL', 'fcTL', 'IDAT', 'fcTL', 'fdAT', 'IEND',
    ]);
    expect(scan.personal).toEqual(['tEXt Comment', 'zTXt Raw profile type exif', 'iTXt XML:com.adobe.xmp', 'eXIf', '3 bytes after the end']);
    expect(scan.problems).toEqual([]);
  });

  test('a palette with tRNS: 8 bits a channel, 4 channels; the profile inflated; frames, delays (no denominator: 1/100 s) and plays', () => {
    const scan = scanImage(file);
    expect([scan.width, scan.height, scan.bits, scan.channels]).toEqual([20, 10, 8, 4]);
    expect(scan.icc?.equals(icc)).toBe(true);
    expect(scan.animation).toEqual({ frames: 2, delaysMs: [150, 250], loop: 7 });
  });

  test('colour types: gray 1, gray+alpha 2, RGB 3, RGBA 4; 16 bits as 16', () => {
    const of = (depth: number, colourType: number, extra: Buffer[] = []) => {
      const scan = scanImage(Buffer.concat([signature, ihdr(depth, colourType), ...extra, idat, chunk('IEND', Buffer.alloc(0))]));
      return [scan.bits, scan.channels, scan.animation.frames, scan.personal.length];
    };
    expect(of(8, 0)).toEqual([8, 1, 1, 0]);
    expect(of(16, 4)).toEqual([16, 2, 1, 0]);
    expect(of(16, 2)).toEqual([16, 3, 1, 0]);
    expect(of(8, 2, [chunk('tRNS', Buffer.alloc(6))])).toEqual([8, 4, 1, 0]);
    expect(of(8, 6)).toEqual([8, 4, 1, 0]);
  });

  test('the coded picture leaves out text and profile chunks', () => {
    const bare = Buffer.concat([signature, ihdr(4, 3), chunk('PLTE', Buffer.alloc(12)), chunk('tRNS', Buffer.from([0])), chunk('acTL', Buffer.concat([u32(2), u32(7)])), fctl(0, 15, 0), idat, fctl(1, 1, 4), chunk('fdAT', Buffer.concat([u32(2), zlib.deflateSync(Buffer.alloc(110))])), chunk('IEND', Buffer.alloc(0))]);
    expect(scanImage(bare).imageData.equals(scanImage(file).imageData)).toBe(true);
    expect(scanImage(bare).personal).toEqual([]);
    // The same zlib stream cut into other IDAT chunks codes the same picture; another stream does not.
    const stream = zlib.deflateSync(Buffer.alloc(11 * 10));
    const whole = Buffer.concat([signature, ihdr(8, 0), chunk('IDAT', stream), chunk('IEND', Buffer.alloc(0))]);
    const cut = Buffer.concat([signature, ihdr(8, 0), chunk('IDAT', stream.subarray(0, 3)), chunk('IDAT', stream.subarray(3)), chunk('IEND', Buffer.alloc(0))]);
    const other = Buffer.concat([signature, ihdr(8, 0), chunk('IDAT', zlib.deflateSync(Buffer.alloc(11 * 10), { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
    expect(scanImage(cut).imageData.equals(scanImage(whole).imageData)).toBe(true);
    expect(scanImage(other).imageData.equals(scanImage(whole).imageData)).toBe(false);
  });

  test('a bad CRC and a length past the file: noted, no exception', () => {
    const bad = Buffer.from(file);
    bad[8 + 8 + 3] ^= 1;
    expect(scanImage(bad).problems[0]).toBe('chunk IHDR at 8: bad CRC');
    const lying = Buffer.concat([signature, ihdr(8, 2), u32(0x7fff0000), text('tEXt'), text('Comment')]);
    expect(scanImage(lying).problems).toEqual(['chunk "tEXt" at 33 says 2147418112 bytes, past the file', 'no IEND']);
    expectSturdy(file);
  });
});

describe('GIF: blocks, frames, delays, loop, transparency', () => {
  const subBlocks = (data: Buffer) => Buffer.concat([Buffer.from([data.length]), data, Buffer.from([0])]);
  const header = Buffer.concat([text('GIF89a'), le16(4), le16(2), Buffer.from([0x80, 0, 0]), Buffer.alloc(6)]);
  const loop = (id: string, count: number) => Buffer.concat([Buffer.from([0x21, 0xff, 11]), text(id), Buffer.from([3, 1]), le16(count), Buffer.from([0])]);
  const control = (delayCs: number, transparent: boolean) => Buffer.from([0x21, 0xf9, 4, transparent ? 1 : 0, delayCs & 0xff, delayCs >> 8, 0, 0]);
  const image = Buffer.concat([Buffer.from([0x2c]), le16(0), le16(0), le16(4), le16(2), Buffer.from([0]), Buffer.from([2]), subBlocks(Buffer.from([0x44, 0x01])), Buffer.from([])]);
  // XMP as Adobe writes it: raw text, then the magic trailer that walks any reader to a terminator.
  const trailer = Buffer.from([1, ...Array.from({ length: 256 }, (_, i) => 255 - i), 0]);
  const xmp = Buffer.concat([Buffer.from([0x21, 0xff, 11]), text('XMP DataXMP'), text('<x:xmpmeta>GPS 48.85</x:xmpmeta>'), trailer]);
  const file = Buffer.concat([
    header,
    loop('NETSCAPE2.0', 5),
    Buffer.concat([Buffer.from([0x21, 0xfe]), subBlocks(text('Jane Doe'))]),
    xmp,
    control(7, true),
    image,
    control(3, false),
    image,
    Buffer.from([0x3b]),
    text('PK'),
  ]);

  test('extensions by kind; personal: comments, application blocks other than the loop, bytes after the trailer', () => {
    const scan = scanImage(file);
    expect(scan.parts).toEqual(['application NETSCAPE2.0', 'comment', 'application XMP DataXMP', 'graphic control', 'image', 'graphic control', 'image']);
    expect(scan.personal).toEqual(['comment', 'application XMP DataXMP', '2 bytes after the end']);
    expect(scan.problems).toEqual([]);
  });

  test('frames, their delays, the loop count; 8 bits; a transparent index makes 4 channels', () => {
    const scan = scanImage(file);
    expect(scan.animation).toEqual({ frames: 2, delaysMs: [70, 30], loop: 5 });
    expect([scan.width, scan.height, scan.bits, scan.channels]).toEqual([4, 2, 8, 4]);
    const opaque = scanImage(Buffer.concat([header, loop('ANIMEXTS1.0', 0), control(3, false), image, Buffer.from([0x3b])]));
    expect([opaque.channels, opaque.animation.frames, opaque.animation.loop, opaque.personal]).toEqual([3, 1, 0, []]);
  });

  test('the coded picture without comments and application blocks', () => {
    const bare = Buffer.concat([header, control(7, true), image, control(3, false), image, Buffer.from([0x3b])]);
    expect(scanImage(bare).imageData.equals(scanImage(file).imageData)).toBe(true);
  });

  test('sub-blocks cut short: noted, no exception', () => {
    const cut = scanImage(Buffer.concat([header, Buffer.from([0x21, 0xfe, 200]), text('Jane')]));
    expect(cut.problems).toEqual(['extension 0xfe at 19 cut', 'no trailer']);
    expectSturdy(file);
  });
});

describe('WebP: chunks, VP8X flags, lossless, animation', () => {
  const chunk = (type: string, payload: Buffer) => Buffer.concat([text(type), le32(payload.length), payload, payload.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  const riff = (chunks: Buffer[], extra = Buffer.alloc(0)) => {
    const body = Buffer.concat(chunks);
    return Buffer.concat([text('RIFF'), le32(body.length + 4), text('WEBP'), body, extra]);
  };
  /** VP8L's header: signature, 14-bit width-1 and height-1, alpha hint, version 0. */
  const vp8l = (width: number, height: number, alpha: boolean) => {
    const b = Buffer.alloc(9);
    b[0] = 0x2f;
    b.writeUInt32LE(((width - 1) | ((height - 1) << 14) | ((alpha ? 1 : 0) << 28)) >>> 0, 1);
    return chunk('VP8L', b);
  };
  const vp8 = (width: number, height: number) => chunk('VP8 ', Buffer.concat([Buffer.from([0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a]), le16(width), le16(height), Buffer.alloc(6)]));
  const vp8x = (flags: number, width: number, height: number) => chunk('VP8X', Buffer.concat([Buffer.from([flags, 0, 0, 0]), le24(width - 1), le24(height - 1)]));
  const anmf = (duration: number, inner: Buffer) => chunk('ANMF', Buffer.concat([le24(0), le24(0), le24(7), le24(5), le24(duration), Buffer.from([0]), inner]));
  const animated = riff(
    [
      vp8x(0x10 | 0x08 | 0x04 | 0x02, 8, 6),
      chunk('ANIM', Buffer.concat([le32(0), le16(2)])),
      anmf(40, vp8l(8, 6, true)),
      anmf(90, vp8l(8, 6, false)),
      chunk('EXIF', exifTiff()),
      chunk('XMP ', text('<x:xmpmeta/>')),
    ],
    text('trailing')
  );

  test('chunks, flags; personal: EXIF, XMP and bytes past the RIFF size', () => {
    const scan = scanImage(animated);
    expect(scan.parts).toEqual(['VP8X', 'ANIM', 'ANMF', 'ANMF', 'EXIF', 'XMP ']);
    expect(scan.webpFlags).toBe(0x1e);
    expect(scan.personal).toEqual(['EXIF', 'XMP ', '8 bytes after the end']);
    expect(scan.problems).toEqual([]);
  });

  test('frames, durations, loop; lossless when every frame is VP8L; the canvas size; alpha', () => {
    const scan = scanImage(animated);
    expect(scan.animation).toEqual({ frames: 2, delaysMs: [40, 90], loop: 2 });
    expect([scan.lossless, scan.width, scan.height, scan.bits, scan.channels]).toEqual([true, 8, 6, 8, 4]);
  });

  test('a simple lossy file: its size from the VP8 frame header, 3 channels; ALPH makes 4 even when VP8X says no alpha', () => {
    const lossy = scanImage(riff([vp8(300, 200)]));
    expect([lossy.lossless, lossy.width, lossy.height, lossy.channels, lossy.webpFlags, lossy.animation.frames]).toEqual([false, 300, 200, 3, null, 1]);
    const flagZero = scanImage(riff([vp8x(0x08, 300, 200), chunk('ALPH', Buffer.alloc(5)), vp8(300, 200), chunk('EXIF', exifTiff())]));
    expect([flagZero.channels, flagZero.webpFlags, flagZero.personal]).toEqual([4, 0x08, ['EXIF']]);
    expect(scanImage(riff([vp8l(9, 9, false)]))).toMatchObject({ lossless: true, width: 9, height: 9, channels: 3 });
  });

  test('the coded picture without EXIF and XMP', () => {
    const bare = riff([vp8x(0x10 | 0x02, 8, 6), chunk('ANIM', Buffer.concat([le32(0), le16(2)])), anmf(40, vp8l(8, 6, true)), anmf(90, vp8l(8, 6, false))]);
    expect(scanImage(bare).imageData.equals(scanImage(animated).imageData)).toBe(true);
    expect(scanImage(bare).personal).toEqual([]);
  });

  test('a chunk past the RIFF: noted, no exception', () => {
    const lying = riff([chunk('EXIF', exifTiff())]);
    lying.writeUInt32LE(0xfffff, 16);
    expect(scanImage(lying).problems).toEqual(['chunk "EXIF" at 12 says 1048575 bytes, past its container', 'no coded picture']);
    expectSturdy(animated);
  });
});

describe('HEIF: items, their types, the primary item\'s properties', () => {
  const box = (type: string, ...payload: Buffer[]) => {
    const body = Buffer.concat(payload);
    return Buffer.concat([u32(8 + body.length), text(type), body]);
  };
  const full = (type: string, version: number, flags: number, ...payload: Buffer[]) => box(type, u32((version << 24) | flags), ...payload);
  const infe = (id: number, type: string, extra = '') => full('infe', 2, 0, u16(id), u16(0), text(type), text(`\0${extra}`));
  const icc = iccProfile('p3', 'Display P3 (heif test)');
  const alphaUrn = 'urn:mpeg:mpegB:cicp:systems:auxiliary:alpha';
  const file = Buffer.concat([
    box('ftyp', text('avif'), u32(0), text('mif1avif')),
    full(
      'meta',
      0,
      0,
      full('hdlr', 0, 0, u32(0), text('pict'), Buffer.alloc(13)),
      full('pitm', 0, 0, u16(1)),
      full('iinf', 0, 0, u16(4), infe(1, 'av01'), infe(2, 'Exif'), infe(3, 'mime', 'application/rdf+xml\0'), infe(4, 'av01')),
      full('iref', 0, 0, box('cdsc', u16(2), u16(1), u16(1)), box('auxl', u16(4), u16(1), u16(1))),
      box(
        'iprp',
        box(
          'ipco',
          full('ispe', 0, 0, u32(300), u32(200)),
          box('colr', text('prof'), icc),
          box('irot', Buffer.from([1])),
          full('pixi', 0, 0, Buffer.from([3, 10, 10, 10])),
          full('auxC', 0, 0, text(`${alphaUrn}\0`)),
          box('av1C', Buffer.from([0x81, 0x00, 0x40, 0x00]))
        ),
        full('ipma', 0, 0, u32(2), u16(1), Buffer.from([5, 0x81, 2, 3, 0x84, 0x86]), u16(4), Buffer.from([2, 1, 5]))
      )
    ),
    box('mdat', Buffer.alloc(16)),
  ]);

  test('items by type; personal: Exif and XMP (mime) items', () => {
    const scan = scanImage(file);
    expect(scan.parts).toEqual(['ftyp avif', 'meta', 'mdat', 'item 1 av01', 'item 2 Exif', 'item 3 mime application/rdf+xml', 'item 4 av01', 'colr prof']);
    expect(scan.personal).toEqual(['item 2 Exif', 'item 3 mime application/rdf+xml']);
    expect(scan.problems).toEqual([]);
  });

  test('the primary item: turned a quarter (sides swapped), 10 bits from pixi, an alpha item makes 4 channels, its ICC profile', () => {
    const scan = scanImage(file);
    expect([scan.width, scan.height, scan.bits, scan.channels]).toEqual([200, 300, 10, 4]);
    expect(scan.icc?.equals(icc)).toBe(true);
  });

  test('a box past its container: noted, no exception', () => {
    const lying = Buffer.from(file);
    lying.writeUInt32BE(0xffff, file.indexOf(text('iinf')) - 4);
    expect(scanImage(lying).problems.length).toBeGreaterThan(0);
    expectSturdy(file);
  });
});

test('ICC descriptions: v2 text and v4 mluc', () => {
  expect(iccDescription(iccProfile('adobe', 'Adobe RGB (1998) (test)'))).toBe('Adobe RGB (1998) (test)');
  const name = 'sRGB built-in';
  const utf16 = Buffer.from(Array.from(name).flatMap((c) => [0, c.charCodeAt(0)]));
  const mluc = Buffer.concat([text('mluc'), Buffer.alloc(4), u32(1), u32(12), text('enUS'), u32(utf16.length), u32(28), utf16]);
  const header = Buffer.alloc(128);
  const v4 = Buffer.concat([header, u32(1), text('desc'), u32(144), u32(mluc.length), mluc]);
  expect(iccDescription(v4)).toBe(name);
  expect(iccDescription(Buffer.alloc(10))).toBe('');
});

test('anything else is unknown, with nothing personal', () => {
  expect(scanImage(Buffer.from('hello')).container).toBe('unknown');
  expect(forbiddenMetadata(Buffer.alloc(0))).toEqual([]);
});

describe('the corpus holds what its truth says, as the scanner reads it', () => {
  test.each(corpusCases.map((c) => [c.name]))('%s', async (name) => {
    const { truth, bytes } = await corpusEntry(name);
    const scan = scanImage(bytes);
    const container = { jpeg: 'jpeg', png: 'png', gif: 'gif', webp: 'webp', avif: 'heif', heic: 'heif', bmp: 'bmp' }[truth.format];
    expect(scan.container).toBe(container);
    expect(scan.problems).toEqual([]);
    // An EXIF orientation of 5 to 8 stores the picture on its side.
    const orientation = scan.container === 'jpeg' && /^jpeg-orientation-[5-8]$/.test(name);
    expect(orientation ? [scan.height, scan.width] : [scan.width, scan.height]).toEqual([truth.width, truth.height]);
    expect(scan.personal.length > 0).toBe(truth.metadata);
    expect(scan.icc !== null).toBe(truth.icc);
    expect(scan.animation).toEqual({ frames: truth.frames, delaysMs: truth.delaysMs ?? [], loop: truth.loop });
    if (truth.alpha) expect([2, 4]).toContain(scan.channels);
    if (truth.webpLossless) expect(scan.lossless).toBe(true);
  });
});
