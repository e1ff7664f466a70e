'use strict';
/**
 * A corpus of images as phones, cameras and editors write them, each with the truth a test checks the
 * service's files against: frames, delays and loop; which colour each quadrant shows once upright;
 * where it is transparent; its colours in sRGB, worked out here from the pixel values and the colour
 * space's published primaries (not by a colour engine); whether it carries metadata that locates or
 * names someone; whether it has an ICC profile.
 *
 * Made at test time: pixels written here, encoded by sharp (JPEG, WebP, AVIF, GIF frames), by
 * Debian's heif-enc (HEIC) or by hand (PNG, APNG, BMP, ICC profiles, EXIF, IPTC, and the containers
 * that carry them: sharp would not write an APNG, a gray+alpha PNG, a WebP whose VP8X flags lie, a
 * motion photo or an MPO). Files are small: the pictures are flat quadrants, most under 100×100; the
 * few that must be wider than a `.md` (500) compress to a few kilobytes, but the BMP.
 */
const { execFile } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { promisify } = require('util');
const zlib = require('zlib');
const sharp = require('sharp');
const { animatedGif } = require('./gif');
const { animatedWebp, webpChunks } = require('./webp');
const { HEIF_ENC, heic } = require('./heif');

const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// Colour: sRGB's transfer function, and RGB→XYZ matrices (D65) of the spaces the corpus uses.

const srgbToLinear = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const linearToSrgb = (v) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
/** Adobe RGB (1998)'s gamma, 563/256: what its ICC curve holds exactly (u8Fixed8 0x0233). */
const ADOBE_GAMMA = 563 / 256;

const SPACES = {
  // IEC 61966-2-1.
  srgb: { toXyz: [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.072175], [0.0193339, 0.119192, 0.9503041]], decode: srgbToLinear },
  // Display P3: DCI-P3's primaries, D65, sRGB's curve.
  p3: { toXyz: [[0.4865709, 0.2656677, 0.1982173], [0.2289746, 0.6917385, 0.0792869], [0, 0.0451134, 1.0439444]], decode: srgbToLinear },
  // Adobe RGB (1998).
  adobe: { toXyz: [[0.5767309, 0.185554, 0.1881852], [0.2973769, 0.6273491, 0.0752741], [0.0270343, 0.0706872, 0.9911085]], decode: (v) => v ** ADOBE_GAMMA },
};

const multiply = (m, v) => m.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);
function invert(m) {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  return [
    [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}
const product = (a, b) => a.map((row) => [0, 1, 2].map((j) => row[0] * b[0][j] + row[1] * b[1][j] + row[2] * b[2][j]));
const XYZ_TO_SRGB = invert(SPACES.srgb.toXyz);

/** The sRGB colour (0..255) that pixel values `rgb` of `space` show; throws when sRGB cannot show it. */
function toSrgb(space, rgb) {
  const { toXyz, decode } = SPACES[space];
  const linear = multiply(XYZ_TO_SRGB, multiply(toXyz, rgb.map((v) => decode(v / 255))));
  return linear.map((v) => {
    if (v < -0.002 || v > 1.002) throw new Error(`${space} ${rgb} is outside sRGB`);
    return Math.round(255 * linearToSrgb(Math.min(1, Math.max(0, v))));
  });
}

// ---------------------------------------------------------------------------------------------
// ICC profiles (v2, matrix and curves), written here: sharp ships no Adobe RGB profile.

const D50 = [0.9642, 1, 0.8249];
const D65 = [0.95047, 1, 1.08883];
const BRADFORD = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]];
/** D65 to D50, Bradford's way, as ICC profiles store their colorants (relative to a D50 PCS). */
function adaptD65ToD50() {
  const [s, d] = [multiply(BRADFORD, D65), multiply(BRADFORD, D50)];
  return product(invert(BRADFORD), product([[d[0] / s[0], 0, 0], [0, d[1] / s[1], 0], [0, 0, d[2] / s[2]]], BRADFORD));
}

const s15 = (v) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(Math.round(v * 65536), 0);
  return b;
};
const pad4 = (b) => (b.length % 4 ? Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]) : b);
const sig = (s) => Buffer.from(s, 'latin1');
const u32be = (v) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0, 0);
  return b;
};
const u16be = (v) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v, 0);
  return b;
};

/** A display profile of `space` named `description`: colorants adapted to D50, curves per channel. */
function iccProfile(space, description) {
  const colorants = product(adaptD65ToD50(), SPACES[space].toXyz);
  const xyz = (v) => Buffer.concat([sig('XYZ '), Buffer.alloc(4), ...v.map(s15)]);
  // Adobe RGB: a gamma curve (curv, one u8Fixed8 entry); P3: sRGB's (parametric function 3).
  const curve =
    space === 'adobe'
      ? Buffer.concat([sig('curv'), Buffer.alloc(4), u32be(1), u16be(Math.round(ADOBE_GAMMA * 256))])
      : Buffer.concat([sig('para'), Buffer.alloc(4), u16be(3), Buffer.alloc(2), ...[2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045].map(s15)]);
  const ascii = Buffer.from(`${description}\0`, 'latin1');
  const desc = Buffer.concat([sig('desc'), Buffer.alloc(4), u32be(ascii.length), ascii, Buffer.alloc(4 + 4 + 2 + 1 + 67)]);
  const cprt = Buffer.concat([sig('text'), Buffer.alloc(4), Buffer.from('No copyright, test profile\0', 'latin1')]);
  const tags = [
    ['desc', desc],
    ['cprt', cprt],
    ['wtpt', xyz(D50)],
    ['rXYZ', xyz(colorants.map((row) => row[0]))],
    ['gXYZ', xyz(colorants.map((row) => row[1]))],
    ['bXYZ', xyz(colorants.map((row) => row[2]))],
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ];
  const tableSize = 4 + tags.length * 12;
  const data = [];
  const table = [u32be(tags.length)];
  let offset = 128 + tableSize;
  const placed = new Map();
  for (const [name, body] of tags) {
    let at = placed.get(body);
    if (at === undefined) {
      at = offset;
      placed.set(body, at);
      data.push(pad4(body));
      offset += pad4(body).length;
    }
    table.push(sig(name), u32be(at), u32be(body.length));
  }
  const header = Buffer.alloc(128);
  header.writeUInt32BE(offset, 0);
  header.writeUInt32BE(0x02100000, 8);
  header.write('mntrRGB XYZ ', 12, 'latin1');
  [2024, 1, 1, 0, 0, 0].forEach((v, i) => header.writeUInt16BE(v, 24 + i * 2));
  header.write('acsp', 36, 'latin1');
  D50.forEach((v, i) => s15(v).copy(header, 68 + i * 4));
  return Buffer.concat([header, ...table, ...data]);
}

// ---------------------------------------------------------------------------------------------
// Pictures: four flat quadrants and a flat centre patch, so that orientation, colour and
// transparency can each be read at a point, whatever crop or scale a variant makes.

/** The centre patch spans this fraction of each side, around the middle. */
const PATCH = [0.3, 0.7];

/**
 * Raw pixels (`channels` 1..4, 8 bits) of `width`×`height`: `corners` (top left, top right, bottom
 * left, bottom right) as quadrants, `centre` as the middle patch (null: the quadrants go on; with 2
 * or 4 channels its last value is the alpha).
 */
function quadrantPixels(width, height, corners, centre, channels) {
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [fx, fy] = [(x + 0.5) / width, (y + 0.5) / height];
      const inPatch = centre && fx > PATCH[0] && fx < PATCH[1] && fy > PATCH[0] && fy < PATCH[1];
      const value = inPatch ? centre : corners[(fy < 0.5 ? 0 : 2) + (fx < 0.5 ? 0 : 1)];
      for (let c = 0; c < channels; c++) data[(y * width + x) * channels + c] = value[c] ?? 255;
    }
  }
  return data;
}

/**
 * The stored pixels of an upright picture that EXIF orientation `orientation` turns into it: for each
 * stored pixel, the displayed pixel it becomes (TIFF 6.0's eight orientations).
 */
function storedForOrientation(upright, width, height, channels, orientation) {
  const swap = orientation >= 5;
  const [sw, sh] = swap ? [height, width] : [width, height];
  const out = Buffer.alloc(upright.length);
  for (let sy = 0; sy < sh; sy++) {
    for (let sx = 0; sx < sw; sx++) {
      const [dx, dy] = {
        1: [sx, sy],
        2: [width - 1 - sx, sy],
        3: [width - 1 - sx, height - 1 - sy],
        4: [sx, height - 1 - sy],
        5: [sy, sx],
        6: [width - 1 - sy, sx],
        7: [width - 1 - sy, height - 1 - sx],
        8: [sy, height - 1 - sx],
      }[orientation];
      upright.copy(out, (sy * sw + sx) * channels, (dy * width + dx) * channels, (dy * width + dx + 1) * channels);
    }
  }
  return { data: out, width: sw, height: sh };
}

// ---------------------------------------------------------------------------------------------
// EXIF (TIFF structure), written here so the corpus knows exactly what it holds.

const TYPE_SIZE = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1 };

/** One IFD at `offset` of a little-endian TIFF: entries [tag, type, values], values > 4 bytes after it. */
function ifd(entries, offset, next = 0) {
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  const head = Buffer.alloc(2 + sorted.length * 12 + 4);
  head.writeUInt16LE(sorted.length, 0);
  const extra = [];
  let extraAt = offset + head.length;
  sorted.forEach(([tag, type, value], i) => {
    let bytes;
    let count;
    if (type === 2) {
      bytes = Buffer.from(`${value}\0`, 'latin1');
      count = bytes.length;
    } else if (type === 5) {
      count = value.length;
      bytes = Buffer.alloc(8 * count);
      value.forEach(([n, d], j) => {
        bytes.writeUInt32LE(n, j * 8);
        bytes.writeUInt32LE(d, j * 8 + 4);
      });
    } else if (type === 7 || type === 1) {
      bytes = Buffer.from(value);
      count = bytes.length;
    } else {
      const list = Array.isArray(value) ? value : [value];
      count = list.length;
      bytes = Buffer.alloc(TYPE_SIZE[type] * count);
      list.forEach((v, j) => (type === 3 ? bytes.writeUInt16LE(v, j * 2) : bytes.writeUInt32LE(v, j * 4)));
    }
    const at = 2 + i * 12;
    head.writeUInt16LE(tag, at);
    head.writeUInt16LE(type, at + 2);
    head.writeUInt32LE(count, at + 4);
    if (bytes.length <= 4) bytes.copy(head, at + 8);
    else {
      head.writeUInt32LE(extraAt, at + 8);
      const padded = bytes.length % 2 ? Buffer.concat([bytes, Buffer.alloc(1)]) : bytes;
      extra.push(padded);
      extraAt += padded.length;
    }
  });
  head.writeUInt32LE(next, head.length - 4);
  return Buffer.concat([head, ...extra]);
}

/** Who, what device, and where: the Eiffel Tower (48°51'29.64"N 2°17'40.20"E). */
const PERSON = { make: 'PhoneCo', model: 'Phone 9', artist: 'Jane Doe' };
const GPS_ENTRIES = [
  [0x0000, 1, [2, 3, 0, 0]],
  [0x0001, 2, 'N'],
  [0x0002, 5, [[48, 1], [51, 1], [2964, 100]]],
  [0x0003, 2, 'E'],
  [0x0004, 5, [[2, 1], [17, 1], [4020, 100]]],
];

/**
 * A TIFF-structured EXIF block (as an `Exif` APP1, a PNG `eXIf` or a WebP `EXIF` chunk carry it):
 * the device and the person, an orientation if asked, and the GPS position unless `gps` is false.
 */
function exifTiff({ orientation = null, gps = true } = {}) {
  const entries = [
    [0x010f, 2, PERSON.make],
    [0x0110, 2, PERSON.model],
    [0x013b, 2, PERSON.artist],
    ...(orientation ? [[0x0112, 3, orientation]] : []),
  ];
  const withPointer = gps ? [...entries, [0x8825, 4, 0]] : entries;
  const first = ifd(withPointer, 8);
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]);
  if (!gps) return Buffer.concat([header, first]);
  const gpsAt = 8 + first.length;
  const ifd0 = ifd(
    withPointer.map((entry) => (entry[0] === 0x8825 ? [0x8825, 4, gpsAt] : entry)),
    8
  );
  return Buffer.concat([header, ifd0, ifd(GPS_ENTRIES, gpsAt)]);
}

/** An XMP packet placing the picture (and naming its author). */
const xmpPacket = (extra = '') =>
  '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"' +
  ` exif:GPSLatitude="48,51.494N" exif:GPSLongitude="2,17.67E"${extra}>` +
  `<dc:creator><rdf:Seq><rdf:li>${PERSON.artist}</rdf:li></rdf:Seq></dc:creator>` +
  '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';

// ---------------------------------------------------------------------------------------------
// JPEG segments.

const segment = (marker, payload) => Buffer.concat([Buffer.from([0xff, marker]), u16be(payload.length + 2), payload]);
const exifSegment = (tiff) => segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]));
const xmpSegment = (xmp) => segment(0xe1, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), Buffer.from(xmp, 'utf8')]));
const iccSegment = (icc) => segment(0xe2, Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([1, 1]), icc]));
const commentSegment = (text) => segment(0xfe, Buffer.from(text, 'latin1'));

/** IPTC-IIM datasets (record 2: by-line, city, country) in a Photoshop APP13, as editors write them. */
function iptcSegment() {
  const dataset = (tag, value) => Buffer.concat([Buffer.from([0x1c, 2, tag]), u16be(Buffer.byteLength(value)), Buffer.from(value, 'latin1')]);
  const iim = Buffer.concat([Buffer.from([0x1c, 2, 0, 0, 2, 0, 4]), dataset(80, PERSON.artist), dataset(90, 'Paris'), dataset(101, 'France')]);
  const padded = iim.length % 2 ? Buffer.concat([iim, Buffer.alloc(1)]) : iim;
  const resource = Buffer.concat([Buffer.from('8BIM', 'latin1'), u16be(0x0404), Buffer.alloc(2), u32be(iim.length), padded]);
  return segment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]));
}

/** `segments` put after SOI and the JFIF APP0 (if any) of a JPEG. */
function withSegments(jpeg, segments) {
  let at = 2;
  if (jpeg[2] === 0xff && jpeg[3] === 0xe0) at = 4 + jpeg.readUInt16BE(4);
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)]);
}

// ---------------------------------------------------------------------------------------------
// PNG, written here: sharp writes no gray+alpha, no 16-bit from 8-bit pixels, no APNG.

function pngChunk(type, data) {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), typed, u32be(zlib.crc32(typed))]);
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Colour type → samples a pixel. */
const PNG_SAMPLES = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function ihdr(width, height, depth, colourType) {
  const b = Buffer.alloc(13);
  b.writeUInt32BE(width, 0);
  b.writeUInt32BE(height, 4);
  b[8] = depth;
  b[9] = colourType;
  return b;
}

/** Zlib-compressed scanlines (filter 0) of `samples` (bytes, or 16-bit values when depth 16). */
function pngData(samples, width, height, depth, colourType) {
  const perRow = width * PNG_SAMPLES[colourType] * (depth / 8);
  const rows = Buffer.alloc((perRow + 1) * height);
  for (let y = 0; y < height; y++) {
    const at = y * (perRow + 1) + 1;
    if (depth === 16) for (let i = 0; i < perRow / 2; i++) rows.writeUInt16BE(samples[(y * perRow) / 2 + i], at + i * 2);
    else Buffer.from(samples.buffer, samples.byteOffset + y * perRow, perRow).copy(rows, at);
  }
  return zlib.deflateSync(rows, { level: 9 });
}

/** A PNG: `extra` chunks (text, eXIf, tRNS...) `before` IDAT or after it. */
function png({ width, height, depth = 8, colourType, samples, palette = null, before = [], after = [] }) {
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr(width, height, depth, colourType)),
    ...(palette ? [pngChunk('PLTE', palette)] : []),
    ...before,
    pngChunk('IDAT', pngData(samples, width, height, depth, colourType)),
    ...after,
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
const textChunk = (keyword, text) => pngChunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'));
const iccpChunk = (name, icc) => pngChunk('iCCP', Buffer.concat([Buffer.from(`${name}\0\0`, 'latin1'), zlib.deflateSync(icc)]));
const itxtXmp = (xmp) => pngChunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), Buffer.from(xmp, 'utf8')]));

/**
 * ImageMagick's way of keeping EXIF in a PNG: a zTXt "Raw profile type exif" holding
 * "\nexif\n<length>\n" and the hex of "Exif\0\0" and the TIFF block, 36 bytes a line.
 */
function rawProfileExif(tiff) {
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const hex = payload.toString('hex').replace(/(.{72})/g, '$1\n');
  const text = `\nexif\n${String(payload.length).padStart(8)}\n${hex}\n`;
  return pngChunk('zTXt', Buffer.concat([Buffer.from('Raw profile type exif\0\0', 'latin1'), zlib.deflateSync(Buffer.from(text, 'latin1'))]));
}

// ---------------------------------------------------------------------------------------------
// WebP containers.

function riffChunk(type, payload) {
  return Buffer.concat([Buffer.from(type, 'latin1'), Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, (payload.length >> 16) & 0xff, payload.length >>> 24]), payload, payload.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}
function riff(chunks) {
  const body = Buffer.concat(chunks);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length + 4, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, body]);
}
/** VP8X: flags (ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04, animation 0x02) and the canvas size. */
function vp8x(flags, width, height) {
  const b = Buffer.alloc(10);
  b[0] = flags;
  b.writeUIntLE(width - 1, 4, 3);
  b.writeUIntLE(height - 1, 7, 3);
  return riffChunk('VP8X', b);
}

// ---------------------------------------------------------------------------------------------
// GIF blocks.

/** Bytes as GIF sub-blocks (up to 255 bytes each) and the terminator. */
function subBlocks(data) {
  const parts = [];
  for (let at = 0; at < data.length; at += 255) {
    const part = data.subarray(at, at + 255);
    parts.push(Buffer.from([part.length]), part);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}
const gifComment = (text) => Buffer.concat([Buffer.from([0x21, 0xfe]), subBlocks(Buffer.from(text, 'latin1'))]);
/**
 * XMP as Adobe writes it in a GIF: application "XMP DataXMP", the packet as is (a reader walking
 * sub-blocks skips it), then the 258-byte "magic trailer" (0x01, 0xFF down to 0x00, 0x00).
 */
function gifXmp(xmp) {
  const trailer = Buffer.alloc(258);
  trailer[0] = 1;
  for (let i = 0; i < 256; i++) trailer[1 + i] = 255 - i;
  return Buffer.concat([Buffer.from([0x21, 0xff, 11]), Buffer.from('XMP DataXMP', 'latin1'), Buffer.from(xmp, 'utf8'), trailer]);
}

/** Offsets of a GIF's graphic control extensions and where its first block after the header starts. */
function gifLayout(gif) {
  const flags = gif[10];
  let at = 13 + (flags & 0x80 ? 3 * (2 << (flags & 7)) : 0);
  const blocksStart = at;
  const controls = [];
  const skip = () => {
    while (gif[at] !== 0) at += gif[at] + 1;
    at++;
  };
  while (at < gif.length && gif[at] !== 0x3b) {
    if (gif[at] === 0x21) {
      if (gif[at + 1] === 0xf9) controls.push(at);
      at += 2;
      skip();
    } else if (gif[at] === 0x2c) {
      const local = gif[at + 9];
      at += 10 + (local & 0x80 ? 3 * (2 << (local & 7)) : 0) + 1;
      skip();
    } else throw new Error(`unexpected GIF block 0x${gif[at].toString(16)} at ${at}`);
  }
  return { blocksStart, controls };
}

// ---------------------------------------------------------------------------------------------
// BMP, written here (sharp has no BMP writer).

/** A bottom-up BI_RGB BMP of RGBA pixels, 24 bits a pixel or 32 (the alpha byte kept). */
function bmp(width, height, rgba, depth) {
  const bytesPerPixel = depth / 8;
  const stride = Math.ceil((width * bytesPerPixel) / 4) * 4;
  const file = Buffer.alloc(54 + stride * height);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(depth, 28);
  file.writeUInt32LE(stride * height, 34);
  for (let y = 0; y < height; y++) {
    const row = 54 + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const o = row + x * bytesPerPixel;
      file[o] = rgba[i + 2];
      file[o + 1] = rgba[i + 1];
      file[o + 2] = rgba[i];
      if (depth === 32) file[o + 3] = rgba[i + 3];
    }
  }
  return file;
}

// ---------------------------------------------------------------------------------------------
// The appended payloads: a motion photo's video and an MPO's second picture.

const mp4Box = (type, ...payload) => {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32be(8 + body.length), Buffer.from(type, 'latin1'), body]);
};
/** An MP4's first boxes as phones append them: ftyp, a location (©xyz) in moov/udta, some mdat. */
function motionVideo() {
  const where = Buffer.from('+48.8584+002.2945/', 'latin1');
  const xyz = mp4Box('\xa9xyz', u16be(where.length), u16be(0x15c7), where);
  return Buffer.concat([
    mp4Box('ftyp', Buffer.from('mp42\0\0\0\0isommp42', 'latin1')),
    mp4Box('moov', mp4Box('udta', xyz, mp4Box('meta', Buffer.from('GPS 48.8584 2.2945 Jane Doe', 'latin1')))),
    mp4Box('mdat', Buffer.alloc(600, 0x5a)),
  ]);
}

/**
 * CIPA DC-007's MP Format APP2 of a first picture, pointing at the second one `secondLength` bytes
 * long, `secondOffset` bytes after the MP header (its TIFF byte-order mark).
 */
function mpfSegment(firstLength, secondLength, secondOffset) {
  const entries = Buffer.alloc(32);
  entries.writeUInt32LE(0x20030000, 0);
  entries.writeUInt32LE(firstLength, 4);
  entries.writeUInt32LE(0x00020002, 16);
  entries.writeUInt32LE(secondLength, 20);
  entries.writeUInt32LE(secondOffset, 24);
  const body = ifd([[0xb000, 7, Buffer.from('0100', 'latin1')], [0xb001, 4, 2], [0xb002, 7, entries]], 8);
  return segment(0xe2, Buffer.concat([Buffer.from('MPF\0', 'latin1'), Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), body]));
}

// ---------------------------------------------------------------------------------------------
// The entries.

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];
const YELLOW = [250, 200, 20];
const QUADRANTS = [RED, GREEN, BLUE, WHITE];
/** Colours that sRGB, P3 and Adobe RGB all hold: pixel values of those spaces. */
const MUTED = [[190, 80, 70], [100, 170, 100], [70, 90, 180], [230, 230, 230]];
/** A Display P3 green whose pixels, read as sRGB, look washed out (the photo). */
const P3_GREEN = [94, 197, 80];
/** A green Adobe RGB holds and sRGB too. */
const ADOBE_GREEN = [130, 190, 110];
const TRANSPARENT = [0, 0, 0, 0];

const raw = (data, width, height, channels) => sharp(data, { raw: { width, height, channels } });
const rgbaOf = (corners, centre) => [corners.map((c) => [...c, 255]), centre.length === 4 ? centre : [...centre, 255]];

/** A HEIC of a PNG or JPEG by heif-enc (its ICC, EXIF and XMP go along). */
async function heifEnc(input, extension, quality) {
  if (!fs.existsSync(HEIF_ENC)) throw new Error(`${HEIF_ENC} is missing: apt-get install libheif-examples (docs/development.md)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-heic-'));
  try {
    fs.writeFileSync(path.join(dir, `in.${extension}`), input);
    await run(HEIF_ENC, ['-q', String(quality), path.join(dir, `in.${extension}`), '-o', path.join(dir, 'out.heic')]);
    return fs.readFileSync(path.join(dir, 'out.heic'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Defaults of an entry's truth. `lossless`: removing metadata must leave the image data as it was
 * (JPEG, PNG, GIF, WebP; a BMP's pixels in its PNG).
 */
const truth = (fields) => ({
  lossless: ['jpeg', 'png', 'gif', 'webp', 'bmp'].includes(fields.format),
  frames: 1,
  delaysMs: null,
  loop: null,
  corners: null,
  centre: null,
  colours: false,
  alpha: false,
  metadata: false,
  icc: false,
  webpLossless: false,
  ...fields,
});


/** The size of most pictures: big enough that JPEG's 16×16 blocks leave the centre patch's middle flat. */
const [W, H] = [160, 112];

function orientationEntry(orientation) {
  const [width, height] = [W, H];
  return {
    name: `jpeg-orientation-${orientation}`,
    filename: `orientation-${orientation}.jpg`,
    truth: truth({ format: 'jpeg', stored: 'jpeg', width, height, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true, lossless: orientation === 1 }),
    async make() {
      const upright = quadrantPixels(width, height, QUADRANTS, YELLOW, 3);
      const stored = storedForOrientation(upright, width, height, 3, orientation);
      const jpeg = await raw(stored.data, stored.width, stored.height, 3).jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [exifSegment(exifTiff({ orientation, gps: false }))]);
    },
  };
}

const P3_ICC = iccProfile('p3', 'Display P3 (test)');
const ADOBE_ICC = iccProfile('adobe', 'Adobe RGB (1998) (test)');

const CASES = [
  ...[1, 2, 3, 4, 5, 6, 7, 8].map(orientationEntry),
  {
    name: 'jpeg-gps-xmp-iptc',
    filename: 'IMG_2041.jpg',
    truth: truth({ format: 'jpeg', stored: 'jpeg', width: W, height: H, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true }),
    async make() {
      const jpeg = await raw(quadrantPixels(W, H, QUADRANTS, YELLOW, 3), W, H, 3).jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [exifSegment(exifTiff()), xmpSegment(xmpPacket()), iptcSegment(), commentSegment(`Taken by ${PERSON.artist}`)]);
    },
  },
  {
    name: 'jpeg-p3-gps',
    filename: 'p3.jpg',
    truth: truth({
      format: 'jpeg', stored: 'jpeg', width: W, height: H,
      corners: MUTED.map((c) => toSrgb('p3', c)), centre: toSrgb('p3', P3_GREEN), colours: true, metadata: true, icc: true,
    }),
    async make() {
      const jpeg = await raw(quadrantPixels(W, H, MUTED, P3_GREEN, 3), W, H, 3).jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [exifSegment(exifTiff()), iccSegment(P3_ICC)]);
    },
  },
  {
    // sharp's own Display P3 profile, the pixels converted to it by libvips from known sRGB colours.
    name: 'jpeg-p3-sharp-profile',
    filename: 'p3-sharp.jpg',
    truth: truth({ format: 'jpeg', stored: 'jpeg', width: W, height: H, corners: MUTED, centre: [28, 200, 58], colours: true, metadata: true, icc: true }),
    async make() {
      const jpeg = await raw(quadrantPixels(W, H, MUTED, [28, 200, 58], 3), W, H, 3).withIccProfile('p3').jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [exifSegment(exifTiff())]);
    },
  },
  {
    name: 'jpeg-adobe-rgb-xmp',
    filename: 'adobe.jpg',
    truth: truth({
      format: 'jpeg', stored: 'jpeg', width: W, height: H,
      corners: MUTED.map((c) => toSrgb('adobe', c)), centre: toSrgb('adobe', ADOBE_GREEN), colours: true, metadata: true, icc: true,
    }),
    async make() {
      const jpeg = await raw(quadrantPixels(W, H, MUTED, ADOBE_GREEN, 3), W, H, 3).jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [iccSegment(ADOBE_ICC), xmpSegment(xmpPacket())]);
    },
  },
  {
    // Without a profile (a CMYK one is about a megabyte): its colours are told apart, not measured.
    name: 'jpeg-cmyk-gps',
    filename: 'print.jpg',
    truth: truth({ format: 'jpeg', stored: 'jpeg', width: W, height: H, corners: MUTED, metadata: true }),
    async make() {
      const jpeg = await raw(quadrantPixels(W, H, MUTED, null, 3), W, H, 3).toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [exifSegment(exifTiff())]);
    },
  },
  {
    name: 'jpeg-gray-iptc',
    filename: 'scan.jpg',
    truth: truth({ format: 'jpeg', stored: 'jpeg', width: W, height: H, corners: [[40, 40, 40], [100, 100, 100], [160, 160, 160], [220, 220, 220]], colours: true, metadata: true }),
    async make() {
      const gray = quadrantPixels(W, H, [[40], [100], [160], [220]], null, 1);
      const jpeg = await raw(gray, W, H, 1).toColourspace('b-w').jpeg({ quality: 95 }).toBuffer();
      return withSegments(jpeg, [iptcSegment()]);
    },
  },
  {
    // 16 bits a sample, values that 8 bits cannot hold; wider than a `.md`.
    name: 'png-16-bit',
    filename: 'deep.png',
    truth: truth({ format: 'png', stored: 'png', width: 600, height: 400, corners: [[200, 30, 60], [40, 160, 90], [50, 70, 180], [230, 220, 210]], centre: YELLOW, colours: true }),
    async make() {
      const corners16 = [[200, 30, 60], [40, 160, 90], [50, 70, 180], [230, 220, 210]].map((c) => c.map((v) => v * 257 + 93));
      const eight = quadrantPixels(600, 400, [[0], [1], [2], [3]], [4], 1);
      const values = [...corners16, YELLOW.map((v) => v * 257 - 77)];
      const samples = new Uint16Array(600 * 400 * 3);
      for (let i = 0; i < eight.length; i++) samples.set(values[eight[i]], i * 3);
      return png({ width: 600, height: 400, depth: 16, colourType: 2, samples });
    },
  },
  {
    // A palette of five colours, one of them transparent (tRNS), as a logo is saved.
    name: 'png-palette-transparent',
    filename: 'logo.png',
    truth: truth({ format: 'png', stored: 'png', width: 600, height: 400, corners: QUADRANTS, centre: TRANSPARENT, colours: true, alpha: true }),
    async make() {
      const indices = quadrantPixels(600, 400, [[0], [1], [2], [3]], [4], 1);
      const palette = Buffer.from([...RED, ...GREEN, ...BLUE, ...WHITE, 0, 0, 0]);
      const trns = pngChunk('tRNS', Buffer.from([255, 255, 255, 255, 0]));
      return png({ width: 600, height: 400, colourType: 3, samples: indices, palette, before: [trns] });
    },
  },
  {
    name: 'png-gray-alpha',
    filename: 'mask.png',
    truth: truth({ format: 'png', stored: 'png', width: 600, height: 400, corners: [[30, 30, 30], [90, 90, 90], [150, 150, 150], [210, 210, 210]], centre: TRANSPARENT, colours: true, alpha: true }),
    async make() {
      const samples = quadrantPixels(600, 400, [[30, 255], [90, 255], [150, 255], [210, 255]], [0, 0], 2);
      return png({ width: 600, height: 400, colourType: 4, samples });
    },
  },
  {
    name: 'png-rgba-xmp',
    filename: 'sticker.png',
    truth: truth({ format: 'png', stored: 'png', width: W, height: H, corners: QUADRANTS, centre: TRANSPARENT, colours: true, alpha: true, metadata: true }),
    async make() {
      const [corners, centre] = rgbaOf(QUADRANTS, TRANSPARENT);
      const samples = quadrantPixels(W, H, corners, centre, 4);
      return png({ width: W, height: H, colourType: 6, samples, before: [itxtXmp(xmpPacket())] });
    },
  },
  {
    // As ImageMagick keeps a JPEG's EXIF when it writes a PNG, and a comment beside it.
    name: 'png-text-raw-profile-exif',
    filename: 'converted.png',
    truth: truth({ format: 'png', stored: 'png', width: W, height: H, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true }),
    async make() {
      const samples = quadrantPixels(W, H, QUADRANTS, YELLOW, 3);
      return png({ width: W, height: H, colourType: 2, samples, before: [textChunk('Comment', `Holiday, ${PERSON.artist}`), rawProfileExif(exifTiff())] });
    },
  },
  {
    name: 'png-exif-chunk',
    filename: 'exif.png',
    truth: truth({ format: 'png', stored: 'png', width: W, height: H, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true }),
    async make() {
      const samples = quadrantPixels(W, H, QUADRANTS, YELLOW, 3);
      return png({ width: W, height: H, colourType: 2, samples, before: [pngChunk('eXIf', exifTiff())] });
    },
  },
  {
    // Three frames, 100, 200 and 300 ms, looping for ever; the first is the default image.
    name: 'apng',
    filename: 'spinner.png',
    truth: truth({ format: 'png', stored: 'png', width: 64, height: 48, frames: 3, delaysMs: [100, 200, 300], loop: 0, corners: QUADRANTS, centre: YELLOW, colours: true }),
    async make() {
      const [width, height] = [64, 48];
      const frames = [0, 1, 2].map((f) => {
        const corners = f === 0 ? QUADRANTS : QUADRANTS.map((_, i) => QUADRANTS[(i + f) % 4]);
        return pngData(quadrantPixels(width, height, corners, YELLOW, 3), width, height, 8, 2);
      });
      let sequence = 0;
      const fctl = (delayCs) => {
        const b = Buffer.alloc(26);
        b.writeUInt32BE(sequence++, 0);
        b.writeUInt32BE(width, 4);
        b.writeUInt32BE(height, 8);
        b.writeUInt16BE(delayCs, 20);
        b.writeUInt16BE(100, 22);
        return pngChunk('fcTL', b);
      };
      const chunks = [pngChunk('acTL', Buffer.concat([u32be(3), u32be(0)])), fctl(10), pngChunk('IDAT', frames[0])];
      for (const [i, data] of frames.slice(1).entries()) {
        chunks.push(fctl((i + 2) * 10));
        chunks.push(pngChunk('fdAT', Buffer.concat([u32be(sequence++), data])));
      }
      return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr(width, height, 8, 2)), ...chunks, pngChunk('IEND', Buffer.alloc(0))]);
    },
  },
  {
    // gif.js's animation (4 frames of 40, 80, 120, 160 ms, looping for ever), with a comment and XMP.
    name: 'gif-animated-comment-xmp',
    filename: 'party.gif',
    truth: truth({ format: 'gif', stored: 'gif', width: 64, height: 48, frames: 4, delaysMs: [40, 80, 120, 160], loop: 0, metadata: true }),
    async make() {
      const gif = Buffer.from(animatedGif({ width: 64, height: 48, frames: 4, distinct: 4, delayCs: 4, block: 8, colorBits: 4 }));
      const { blocksStart, controls } = gifLayout(gif);
      controls.forEach((at, i) => gif.writeUInt16LE((i + 1) * 4, at + 4));
      // After the loop block (19 bytes), before the first frame.
      const at = blocksStart + 19;
      return Buffer.concat([gif.subarray(0, at), gifComment(`Party at Jane's, 48.8584 N 2.2945 E, ${PERSON.artist}`), gifXmp(xmpPacket()), gif.subarray(at)]);
    },
  },
  {
    name: 'gif-transparent',
    filename: 'badge.gif',
    truth: truth({ format: 'gif', stored: 'gif', width: W, height: H, corners: QUADRANTS, centre: TRANSPARENT, colours: true, alpha: true }),
    async make() {
      const [corners, centre] = rgbaOf(QUADRANTS, TRANSPARENT);
      return raw(quadrantPixels(W, H, corners, centre, 4), W, H, 4).gif({ dither: 0 }).toBuffer();
    },
  },
  {
    // webp.js's animation (4 frames of 40, 80, 120, 160 ms, 3 loops), EXIF with GPS and XMP.
    name: 'webp-animated-exif-xmp',
    filename: 'loop.webp',
    truth: truth({ format: 'webp', stored: 'webp', width: 64, height: 48, frames: 4, delaysMs: [40, 80, 120, 160], loop: 3, metadata: true }),
    async make() {
      const made = await animatedWebp({ width: 64, height: 48, frames: 4, distinct: 4, delayMs: 40, exif: exifTiff() });
      let frame = 0;
      const chunks = webpChunks(made).map(({ type, payload }) => {
        const copy = Buffer.from(payload);
        if (type === 'VP8X') copy[0] |= 0x04;
        if (type === 'ANIM') copy.writeUInt16LE(3, 4);
        if (type === 'ANMF') copy.writeUIntLE(++frame * 40, 12, 3);
        return riffChunk(type, copy);
      });
      return riff([...chunks, riffChunk('XMP ', Buffer.from(xmpPacket(), 'utf8'))]);
    },
  },
  {
    // Lossless (VP8L), wider than a `.md`, with EXIF (VP8X says so).
    name: 'webp-lossless-exif',
    filename: 'screen.webp',
    truth: truth({ format: 'webp', stored: 'webp', width: 600, height: 400, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true, webpLossless: true }),
    async make() {
      const encoded = await raw(quadrantPixels(600, 400, QUADRANTS, YELLOW, 3), 600, 400, 3).webp({ lossless: true }).toBuffer();
      const vp8l = webpChunks(encoded).find((chunk) => chunk.type === 'VP8L');
      return riff([vp8x(0x08, 600, 400), riffChunk('VP8L', vp8l.payload), riffChunk('EXIF', exifTiff())]);
    },
  },
  {
    // Lossy with an alpha channel (ALPH), EXIF added by a tool that left VP8X's alpha flag at 0.
    name: 'webp-alpha-flag-0',
    filename: 'cutout.webp',
    truth: truth({ format: 'webp', stored: 'webp', width: W, height: H, corners: QUADRANTS, centre: TRANSPARENT, colours: true, alpha: true, metadata: true }),
    async make() {
      const [corners, centre] = rgbaOf(QUADRANTS, TRANSPARENT);
      const encoded = await raw(quadrantPixels(W, H, corners, centre, 4), W, H, 4).webp({ quality: 90 }).toBuffer();
      const parts = webpChunks(encoded);
      const part = (type) => riffChunk(type, parts.find((chunk) => chunk.type === type).payload);
      return riff([vp8x(0x08, W, H), part('ALPH'), part('VP8 '), riffChunk('EXIF', exifTiff())]);
    },
  },
  {
    name: 'avif-alpha-exif-xmp',
    filename: 'photo.avif',
    truth: truth({ format: 'avif', stored: 'avif', width: W, height: H, corners: QUADRANTS, centre: TRANSPARENT, colours: true, alpha: true, metadata: true }),
    async make() {
      const [corners, centre] = rgbaOf(QUADRANTS, TRANSPARENT);
      return raw(quadrantPixels(W, H, corners, centre, 4), W, H, 4)
        .avif({ quality: 80, effort: 2 })
        .withExif({ IFD0: { Make: PERSON.make, Artist: PERSON.artist }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100' } })
        .withXmp(xmpPacket())
        .toBuffer();
    },
  },
  {
    // heif.js: a grid of two tiles turned a quarter counter-clockwise (irot 1), EXIF with GPS.
    // Upright, the quadrants are green, white / red, blue.
    name: 'heic-grid-rotated-exif',
    filename: 'IMG_0001.HEIC',
    truth: truth({ format: 'heic', stored: 'jpeg', width: 400, height: 600, corners: [GREEN, WHITE, RED, BLUE], metadata: true }),
    make: () => heic({ width: 600, height: 400, rotate: 1, quality: 60, exif: exifTiff() }),
  },
  {
    // As an iPhone writes one: Display P3 (an ICC profile), EXIF and XMP items.
    name: 'heic-display-p3',
    filename: 'IMG_0002.HEIC',
    truth: truth({
      format: 'heic', stored: 'jpeg', width: W, height: H,
      corners: MUTED.map((c) => toSrgb('p3', c)), centre: toSrgb('p3', P3_GREEN), colours: true, metadata: true, icc: true,
    }),
    async make() {
      const jpeg = await raw(quadrantPixels(W, H, MUTED, P3_GREEN, 3), W, H, 3).jpeg({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer();
      return heifEnc(withSegments(jpeg, [exifSegment(exifTiff()), xmpSegment(xmpPacket()), iccSegment(P3_ICC)]), 'jpg', 90);
    },
  },
  {
    name: 'bmp-24',
    filename: 'paint.bmp',
    truth: truth({ format: 'bmp', stored: 'png', width: W, height: H, corners: QUADRANTS, centre: YELLOW, colours: true }),
    async make() {
      return bmp(W, H, this.pixels().data, 24);
    },
    pixels: () => ({ data: quadrantPixels(W, H, ...rgbaOf(QUADRANTS, YELLOW), 4), width: W, height: H, channels: 4 }),
  },
  {
    // 32 bits a pixel (its fourth byte 255: opaque), wider than a `.md`.
    name: 'bmp-32',
    filename: 'screenshot.bmp',
    truth: truth({ format: 'bmp', stored: 'png', width: 510, height: 340, corners: QUADRANTS, centre: YELLOW, colours: true }),
    async make() {
      return bmp(510, 340, this.pixels().data, 32);
    },
    pixels: () => ({ data: quadrantPixels(510, 340, ...rgbaOf(QUADRANTS, YELLOW), 4), width: 510, height: 340, channels: 4 }),
  },
  {
    // A motion photo: the still, XMP saying where its video starts, then the video (with a location).
    name: 'jpeg-motion-photo',
    filename: 'PXL_0001.MP.jpg',
    truth: truth({ format: 'jpeg', stored: 'jpeg', width: W, height: H, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true }),
    async make() {
      const video = motionVideo();
      const jpeg = await raw(quadrantPixels(W, H, QUADRANTS, YELLOW, 3), W, H, 3).jpeg({ quality: 95 }).toBuffer();
      const container =
        ' xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1"' +
        ` GCamera:MotionPhotoPresentationTimestampUs="0" GCamera:MicroVideoOffset="${video.length}"`;
      return Buffer.concat([withSegments(jpeg, [xmpSegment(xmpPacket(container))]), video]);
    },
  },
  {
    // A stereo camera's MPO: the first picture (EXIF without GPS, the MP Format index), then a
    // second whole JPEG with GPS.
    name: 'jpeg-mpo',
    filename: 'stereo.jpg',
    truth: truth({ format: 'jpeg', stored: 'jpeg', width: W, height: H, corners: QUADRANTS, centre: YELLOW, colours: true, metadata: true }),
    async make() {
      const first = await raw(quadrantPixels(W, H, QUADRANTS, YELLOW, 3), W, H, 3).jpeg({ quality: 95 }).toBuffer();
      const secondPixels = quadrantPixels(W, H, [...QUADRANTS].reverse(), YELLOW, 3);
      const second = withSegments(await raw(secondPixels, W, H, 3).jpeg({ quality: 80 }).toBuffer(), [exifSegment(exifTiff())]);
      const exif = exifSegment(exifTiff({ gps: false }));
      const draft = withSegments(first, [exif, mpfSegment(0, 0, 0)]);
      // The MP header (byte-order mark) follows the APP2 marker, length and "MPF\0".
      const mpfAt = draft.indexOf(Buffer.from('MPF\0', 'latin1')) + 4;
      const mpf = mpfSegment(draft.length, second.length, draft.length - mpfAt);
      return Buffer.concat([withSegments(first, [exif, mpf]), second]);
    },
  },
];

/** The corpus's cases: name, file name and truth at once, bytes when made. */
const corpusCases = CASES.map(({ name, filename, truth: expected }) => ({ name, filename, truth: expected }));

const made = new Map();
/** The entry named `name`, made once per process. */
function corpusEntry(name) {
  let entry = made.get(name);
  if (!entry) {
    const found = CASES.find((c) => c.name === name);
    if (!found) throw new Error(`no corpus entry ${name}`);
    entry = found.make().then((bytes) => ({ name, filename: found.filename, truth: found.truth, bytes, pixels: found.pixels?.() ?? null }));
    made.set(name, entry);
  }
  return entry;
}

/** Every entry, made. */
const corpus = () => Promise.all(CASES.map((c) => corpusEntry(c.name)));

module.exports = { bmp, corpus, corpusCases, corpusEntry, exifTiff, iccProfile, toSrgb, PERSON, PATCH };
