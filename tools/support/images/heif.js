'use strict';
/**
 * HEIC files as phones write them, for the tests and the benchmarks: the image cut into 512×512 HEVC
 * tiles and put back together by a `grid` item, optionally turned by an `irot` property, carrying
 * EXIF, and describing its colour by a `colr` property (an ICC profile, or nclx code points, as
 * iPhones describe Display P3). Debian's heif-enc
 * (libheif-examples) encodes the tiles; it writes neither grids nor rotations, so the container is
 * assembled here (ISO/IEC 23008-12: ftyp, meta with hdlr/pitm/iloc/iinf/iref/iprp, then mdat).
 * Files are made once per process and cached by their parameters.
 */
const { execFile } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { promisify } = require('util');
const sharp = require('sharp');

const run = promisify(execFile);
const HEIF_ENC = '/usr/bin/heif-enc';
/** Boxes: size, type, payload. A full box has a version and flags before its payload. */
const box = (type, ...payload) => {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
};
const fullBox = (type, version, flags, ...payload) => {
  const vf = Buffer.alloc(4);
  vf.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff), 0);
  return box(type, vf, ...payload);
};
const u8 = (...values) => Buffer.from(values);
const u16 = (...values) => {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeUInt16BE(v, i * 2));
  return b;
};
const u32 = (...values) => {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32BE(v, i * 4));
  return b;
};
const text = (value) => Buffer.from(value, 'latin1');
/** The child boxes of a container payload. */
function children(data, start = 0, end = data.length) {
  const found = new Map();
  for (let at = start; at + 8 <= end; ) {
    const size = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    found.set(type, [...(found.get(type) ?? []), data.subarray(at, at + size)]);
    if (size < 8) break;
    at += size;
  }
  return found;
}
/** The primary image's coded data and its hvcC property, from a single-image file heif-enc wrote. */
function tileOf(file) {
  const meta = children(file).get('meta')[0];
  const inMeta = children(meta, 12);
  const ipco = children(inMeta.get('iprp')[0], 8).get('ipco')[0];
  const hvcC = children(ipco, 8).get('hvcC')[0];
  const iloc = inMeta.get('iloc')[0];
  const version = iloc[8];
  const offsetSize = iloc[12] >> 4;
  const lengthSize = iloc[12] & 15;
  const baseSize = iloc[13] >> 4;
  const indexSize = version > 0 ? iloc[13] & 15 : 0;
  const read = (at, size) => (size === 0 ? 0 : size === 4 ? iloc.readUInt32BE(at) : Number(iloc.readBigUInt64BE(at)));
  let at = 14;
  const count = iloc.readUInt16BE(at);
  at += 2;
  for (let i = 0; i < count; i++) {
    const id = iloc.readUInt16BE(at);
    at += 2 + (version > 0 ? 2 : 0) + 2;
    const base = read(at, baseSize);
    at += baseSize;
    const extents = iloc.readUInt16BE(at);
    at += 2;
    const parts = [];
    for (let e = 0; e < extents; e++) {
      at += indexSize;
      const offset = read(at, offsetSize);
      at += offsetSize;
      const length = read(at, lengthSize);
      at += lengthSize;
      parts.push(file.subarray(base + offset, base + offset + length));
    }
    if (id === 1) return { data: Buffer.concat(parts), hvcC };
  }
  throw new Error('heif-enc wrote no item 1');
}
/** Four quadrants: red top left, green top right, blue bottom left, white bottom right. */
function quadrants(width, height) {
  const [w, h] = [Math.ceil(width / 2), Math.ceil(height / 2)];
  const part = (background) => ({
    create: { width: w, height: h, channels: 3, background },
  });
  return sharp({
    create: { width, height, channels: 3, background: '#ffffff' },
  })
    .composite([
      { input: part('#ff0000'), left: 0, top: 0 },
      { input: part('#00ff00'), left: width - w, top: 0 },
      { input: part('#0000ff'), left: 0, top: height - h },
    ])
    .png()
    .toBuffer();
}
const TILE = 512;
const cache = new Map();
let scratch = null;
/** A grid HEIC (as phones write): tiles of 512×512, the last row and column cut by the grid's output size. */
function heic(options) {
  const id = JSON.stringify({
    ...options,
    exif: options.exif?.toString('hex'),
    picture: options.picture && crypto.createHash('sha256').update(options.picture).digest('hex'),
    colour: options.colour && { ...options.colour, icc: options.colour.icc?.toString('hex') },
  });
  let made = cache.get(id);
  if (!made) {
    made = makeHeic(options);
    cache.set(id, made);
  }
  return made;
}
function needHeifEnc() {
  if (!fs.existsSync(HEIF_ENC)) throw new Error(`${HEIF_ENC} is missing: apt-get install libheif-examples (docs/development.md)`);
}
async function makeHeic({ width, height, rotate = 0, quality = 50, exif, picture, colour }) {
  scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'heic-'));
  const columns = Math.ceil(width / TILE);
  const rows = Math.ceil(height / TILE);
  // Padded to whole tiles with the edge's pixels, as an encoder does.
  const full = await sharp(picture ?? (await quadrants(width, height)))
    .extend({
      right: columns * TILE - width,
      bottom: rows * TILE - height,
      extendWith: 'copy',
    })
    .png()
    .toBuffer();
  const tiles = [];
  for (let r = 0; r < rows; r++) {
    const row = await Promise.all(
      Array.from({ length: columns }, async (_, c) =>
        encodeTile(
          await sharp(full)
            .extract({
              left: c * TILE,
              top: r * TILE,
              width: TILE,
              height: TILE,
            })
            .png()
            .toBuffer(),
          quality,
          colour?.nclx,
        ),
      ),
    );
    tiles.push(...row);
  }
  return assemble(tiles, columns, rows, { width, height }, rotate, exif, colour);
}
/**
 * A HEIC bomb: one 512×512 tile, coded once and named by every cell of a `columns`×`rows` grid, so a
 * file of a few kilobytes declares columns×rows×0.26 megapixels.
 */
async function heicBomb(columns, rows) {
  const tile = await encodeTile(await quadrants(TILE, TILE), 50);
  return assemble(
    Array.from({ length: columns * rows }, () => tile),
    columns,
    rows,
    { width: columns * TILE, height: rows * TILE },
    0,
  );
}
/** One tile (a PNG of 512×512) coded by heif-enc; `nclx` code points also go into the HEVC stream's VUI. */
async function encodeTile(png, quality, nclx) {
  needHeifEnc();
  scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'heic-'));
  const dir = fs.mkdtempSync(path.join(scratch, 'tile-'));
  try {
    fs.writeFileSync(path.join(dir, 'tile.png'), png);
    const codePoints = nclx
      ? [`--colour_primaries=${nclx.primaries}`, `--transfer_characteristic=${nclx.transfer}`, `--matrix_coefficients=${nclx.matrix}`, `--full_range_flag=${nclx.fullRange ? 1 : 0}`]
      : [];
    await run(HEIF_ENC, ['-q', String(quality), '--no-alpha', ...codePoints, path.join(dir, 'tile.png'), '-o', path.join(dir, 'tile.heic')]);
    return tileOf(fs.readFileSync(path.join(dir, 'tile.heic')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
/** A `colr` property: an ICC profile (`prof`) or nclx code points. */
function colr(colour) {
  if (colour.icc) return box('colr', text('prof'), colour.icc);
  const { primaries, transfer, matrix, fullRange } = colour.nclx;
  return box('colr', text('nclx'), u16(primaries, transfer, matrix), u8(fullRange ? 0x80 : 0));
}
/** The container: tiles 1..n, the grid n+1 (primary), EXIF n+2. */
function assemble(tiles, columns, rows, output, rotate, exif, colour) {
  // Tiles that are the same object (a bomb's) share one coded extent and one hvcC property.
  const distinct = [...new Set(tiles)];
  const gridId = tiles.length + 1;
  const exifId = gridId + 1;
  const large = output.width > 0xffff || output.height > 0xffff;
  const gridData = Buffer.concat([
    u8(0, large ? 1 : 0, rows - 1, columns - 1),
    large ? u32(output.width, output.height) : u16(output.width, output.height),
  ]);
  // The Exif item starts with the offset of the TIFF header within it (0).
  const exifData = exif ? Buffer.concat([u32(0), exif]) : null;
  const payloads = [...distinct.map((tile) => tile.data), gridData, ...(exifData ? [exifData] : [])];
  /** Item ids in payload order: each distinct tile's, the grid's, the EXIF's. */
  const owners = [...distinct.map((tile) => tiles.indexOf(tile) + 1), gridId, ...(exifData ? [exifId] : [])];
  const ftyp = box('ftyp', text('heic'), u32(0), text('mif1'), text('heic'), text('miaf'));
  const build = (mdatStart) => {
    let offset = mdatStart + 8;
    const extent = new Map();
    payloads.forEach((payload, i) => {
      extent.set(owners[i], u32(offset, payload.length));
      offset += payload.length;
    });
    const tileExtent = (tile) => extent.get(tiles.indexOf(tile) + 1);
    const locations = [
      ...tiles.map((tile, i) => Buffer.concat([u16(i + 1, 0, 1), tileExtent(tile)])),
      Buffer.concat([u16(gridId, 0, 1), extent.get(gridId)]),
      ...(exifData ? [Buffer.concat([u16(exifId, 0, 1), extent.get(exifId)])] : []),
    ];
    const iloc = fullBox('iloc', 0, 0, u8(0x44, 0x00), u16(locations.length), ...locations);
    const infe = (id, type, hidden) => fullBox('infe', 2, hidden ? 1 : 0, u16(id, 0), text(type), u8(0));
    const iinf = fullBox(
      'iinf',
      0,
      0,
      u16(locations.length),
      ...tiles.map((_, i) => infe(i + 1, 'hvc1', true)),
      infe(gridId, 'grid', false),
      ...(exifData ? [infe(exifId, 'Exif', false)] : []),
    );
    const references = [box('dimg', u16(gridId, tiles.length), u16(...tiles.map((_, i) => i + 1)))];
    if (exifData) references.push(box('cdsc', u16(exifId, 1), u16(gridId)));
    const iref = fullBox('iref', 0, 0, ...references);
    // Properties: 1..d the distinct tiles' hvcC, d+1 the tile size, d+2 the output size, then the
    // rotation and the colour, each when there is one.
    const properties = [
      ...distinct.map((tile) => tile.hvcC),
      fullBox('ispe', 0, 0, u32(TILE, TILE)),
      fullBox('ispe', 0, 0, u32(output.width, output.height)),
      ...(rotate ? [box('irot', u8(rotate))] : []),
      ...(colour ? [colr(colour)] : []),
    ];
    const tileSize = distinct.length + 1;
    const essential = (index) => 0x80 | index;
    // The grid's properties: its size; its rotation (essential); its colour (as phones write it, on the grid).
    const gridProperties = [tileSize + 1, ...(rotate ? [essential(tileSize + 2)] : []), ...(colour ? [tileSize + (rotate ? 3 : 2)] : [])];
    const associations = [
      ...tiles.map((tile, i) => Buffer.concat([u16(i + 1), u8(2, essential(distinct.indexOf(tile) + 1), tileSize)])),
      Buffer.concat([u16(gridId), u8(gridProperties.length, ...gridProperties)]),
    ];
    const iprp = box('iprp', box('ipco', ...properties), fullBox('ipma', 0, 0, u32(associations.length), ...associations));
    const hdlr = fullBox('hdlr', 0, 0, u32(0), text('pict'), u32(0, 0, 0), u8(0));
    return fullBox('meta', 0, 0, hdlr, fullBox('pitm', 0, 0, u16(gridId)), iloc, iinf, iref, iprp);
  };
  // The offsets depend on the meta box's size, which does not depend on them.
  const meta = build(ftyp.length + build(0).length);
  return Buffer.concat([ftyp, meta, box('mdat', ...payloads)]);
}

module.exports = { HEIF_ENC, heic, heicBomb, quadrants };
