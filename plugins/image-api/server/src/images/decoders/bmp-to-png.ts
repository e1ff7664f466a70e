/**
 * A BMP as a PNG, band of rows by band of rows, so that its pixels are never in memory whole: the
 * stored original, from which libvips makes the variants, streaming. It runs in a worker thread
 * (bmp-worker.ts), off the event loop.
 *
 * A palette BMP (1, 2, 4 or 8 bits a pixel) becomes a palette PNG of the same depth: its rows are
 * copied as they are, and the PNG is the size of the BMP (an RGB PNG of the 9.7 MB 1-bit BMP of
 * 8800×8800 was 17 MB, over the byte limit that every stored file keeps). 24- and 32-bit rows go
 * through decode-bmp, one band at a time: decode-bmp decodes a whole BMP into RGBA, 4 bytes a pixel
 * (308 MB for that 1-bit BMP, which once took 3 s of the event loop and left RSS 350 MB higher), so
 * each band is handed to it as a BMP of its own (the file's headers, then the band's rows).
 *
 * It reads what decode-bmp reads, as decode-bmp reads it: uncompressed rows of 1, 2, 4, 8 (a
 * palette of `colors` BGRX entries after the header; an index past them is black), 24 or 32 bits,
 * stored bottom-up.
 */
import decodeBmp from 'decode-bmp';
import { errors } from '../../http/api-error';
import { createPngStream, rowBytesOf, type PngStream } from './png-stream';

/** Pixels decoded at once (1 MB of RGBA). */
const BAND_PIXELS = 262_144;

interface BmpLayout {
  width: number;
  height: number;
  depth: number;
  /** Bytes before the rows: the file and DIB headers and the palette. */
  headBytes: number;
  /** Bytes a row takes in the file (padded to 4). */
  stride: number;
  /** Entries of the palette (0 without one). */
  colors: number;
}

/** The layout as decode-bmp reads it (it ignores the pixel-data offset: the rows follow the palette). */
function layoutOf(bytes: Buffer): BmpLayout {
  if (bytes.length < 54) throw errors.invalidImage('truncated header');
  const width = bytes.readUInt32LE(18);
  const height = bytes.readUInt32LE(22);
  const depth = bytes.readUInt16LE(28);
  let colors = bytes.readUInt32LE(46);
  if (colors === 0 && depth <= 8) colors = 2 ** depth;
  const headBytes = 14 + bytes.readUInt32LE(14) + colors * 4;
  const rawStride = (width * depth) / 8;
  const stride = rawStride % 4 ? rawStride + 4 - (rawStride % 4) : rawStride;
  if (!width || !height) throw errors.invalidImage('zero dimensions');
  // Cut short (or a top-down BMP, whose negative height reads as over 2^31 rows): decode-bmp refuses it too.
  if (bytes.length < headBytes + stride * height) throw errors.invalidImage('truncated');
  return { width, height, depth, headBytes, stride, colors: depth <= 8 ? colors : 0 };
}

/** The BMP in `bytes` as a PNG (palette indices for a palette BMP, RGB, or RGBA for 32-bit BMPs, whose alpha decode-bmp keeps). */
export async function bmpToPng(bytes: Buffer): Promise<Buffer> {
  const layout = layoutOf(bytes);
  const { depth } = layout;
  if (depth === 1 || depth === 2 || depth === 4 || depth === 8) return paletteToPng(bytes, layout, depth);
  return trueColorToPng(bytes, layout);
}

/** A palette BMP's rows as they are, bottom row last, with its palette as RGB (indices past it: black, as decode-bmp reads them). */
async function paletteToPng(bytes: Buffer, { width, height, headBytes, stride, colors }: BmpLayout, bits: 1 | 2 | 4 | 8): Promise<Buffer> {
  const palette = Buffer.alloc(3 * 2 ** bits);
  const paletteAt = headBytes - colors * 4;
  for (let i = 0; i < Math.min(colors, 2 ** bits); i++) {
    const bgr = paletteAt + i * 4;
    palette[i * 3] = bytes[bgr + 2];
    palette[i * 3 + 1] = bytes[bgr + 1];
    palette[i * 3 + 2] = bytes[bgr];
  }
  const png = createPngStream(width, height, { palette, bits });
  const rowBytes = rowBytesOf(width, { palette, bits });
  // Copied, not decoded: bands of about the same bytes as a decoded band's RGBA.
  const bandRows = Math.max(1, Math.floor((BAND_PIXELS * 4) / rowBytes));
  const band = Buffer.alloc(rowBytes * bandRows);
  for (let top = 0; top < height; top += bandRows) {
    const rows = Math.min(bandRows, height - top);
    for (let row = 0; row < rows; row++) {
      const from = headBytes + (height - 1 - top - row) * stride;
      bytes.copy(band, row * rowBytes, from, from + rowBytes);
    }
    await png.write(band, rows);
  }
  return png.end();
}

/** A 24- or 32-bit BMP's pixels, decoded by decode-bmp a band at a time. */
async function trueColorToPng(bytes: Buffer, { width, height, depth, headBytes, stride }: BmpLayout): Promise<Buffer> {
  const channels = depth === 32 ? 4 : 3;
  const png: PngStream = createPngStream(width, height, { channels });
  const bandRows = Math.max(1, Math.floor(BAND_PIXELS / width));
  // Reused for every band (the last may be shorter).
  const band = Buffer.alloc(headBytes + stride * bandRows);
  bytes.copy(band, 0, 0, headBytes);
  const rgb = new Uint8Array(bandRows * width * 3);
  for (let top = 0; top < height; top += bandRows) {
    const rows = Math.min(bandRows, height - top);
    // Bottom-up: the image's rows top..top+rows-1 are the file's rows from height-top-rows on.
    band.writeUInt32LE(rows, 22);
    const from = headBytes + (height - top - rows) * stride;
    bytes.copy(band, headBytes, from, from + stride * rows);
    let rgba: Uint8ClampedArray;
    try {
      rgba = decodeBmp(band.subarray(0, headBytes + stride * rows)).data;
    } catch {
      throw errors.invalidImage();
    }
    await png.write(channels === 4 ? new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength) : dropAlpha(rgba, rgb), rows);
  }
  return png.end();
}

/** RGB of the RGBA pixels, into `rgb`. */
function dropAlpha(rgba: Uint8ClampedArray, rgb: Uint8Array): Uint8Array {
  for (let from = 0, to = 0; from < rgba.length; from += 4, to += 3) {
    rgb[to] = rgba[from];
    rgb[to + 1] = rgba[from + 1];
    rgb[to + 2] = rgba[from + 2];
  }
  return rgb;
}
