/**
 * A BMP as a PNG, band of rows by band of rows, so that its pixels are never in memory whole.
 * decode-bmp decodes a whole BMP into RGBA: 4 bytes a pixel, 308 MB for the 9.7 MB 1-bit BMP of
 * 8800×8800 (77 MP, under the pixel cap) that once took 3 s of the event loop and left RSS 350 MB
 * higher. Here it decodes one band at a time: each band is handed to it as a BMP of its own (the
 * file's headers and palette, then the band's rows), and its rows are written to a PNG stream
 * (png-stream.ts): the stored original, from which libvips makes the variants, streaming. It runs in a worker
 * thread (bmp-worker.ts), off the event loop.
 *
 * It reads what decode-bmp reads, as decode-bmp reads it: uncompressed rows of 1, 2, 4, 8 (a
 * palette), 24 or 32 bits, stored bottom-up.
 */
import decodeBmp from 'decode-bmp';
import { errors } from '../../http/api-error';
import { createPngStream } from './png-stream';

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
  return { width, height, depth, headBytes, stride };
}

/** The BMP in `bytes` as a PNG (RGB, or RGBA for 32-bit BMPs, whose alpha decode-bmp keeps). */
export async function bmpToPng(bytes: Buffer): Promise<Buffer> {
  const { width, height, depth, headBytes, stride } = layoutOf(bytes);
  const channels = depth === 32 ? 4 : 3;
  const png = createPngStream(width, height, channels);
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
