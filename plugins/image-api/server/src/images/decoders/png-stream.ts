/**
 * A PNG written band of rows by band of rows, so an image never has to be in memory whole: the rows
 * go through one zlib deflate stream (filter "none", zlib's default level), its output is framed as
 * IDAT chunks. It writes a BMP's stored original (bmp-to-png.ts), in a worker thread: RGB or RGBA
 * pixels, or palette indices of 1, 2, 4 or 8 bits with their palette (a PNG of the same size as the
 * BMP's pixel data, give or take a byte a row: deflate stores what it cannot shrink).
 */
import zlib from 'zlib';
import CRC32 from 'crc-32';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** PNG colour types: 2 is RGB, 6 is RGBA (8 bits a sample), 3 is palette indices. */
const COLOR_TYPE = { 3: 2, 4: 6 } as const;
const PALETTE = 3;

/** What the rows hold: RGB or RGBA samples of 8 bits, or indices of `bits` into `palette` (RGB triples). */
export type PngPixels = { channels: 3 | 4 } | { palette: Buffer; bits: 1 | 2 | 4 | 8 };

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeInt32BE(CRC32.buf(data, CRC32.bstr(type)), 0);
  return Buffer.concat([head, data, crc]);
}

export interface PngStream {
  /** Rows top to bottom, each of `width` pixels packed as `pixels` says (rowBytes() each): `rows` of them. */
  write(pixels: Uint8Array, rows: number): Promise<void>;
  /** The whole PNG once every row is written. */
  end(): Promise<Buffer>;
}

/** Bytes a row of `width` pixels takes. */
export const rowBytesOf = (width: number, pixels: PngPixels) =>
  'palette' in pixels ? Math.ceil((width * pixels.bits) / 8) : width * pixels.channels;

export function createPngStream(width: number, height: number, pixels: PngPixels): PngStream {
  const deflate = zlib.createDeflate({ level: 6 });
  const compressed: Buffer[] = [];
  deflate.on('data', (data: Buffer) => compressed.push(data));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve);
    deflate.once('error', reject);
  });
  const rowBytes = rowBytesOf(width, pixels);
  // One buffer for every band, reused once zlib has taken the previous one: garbage a band at a
  // time would pile up faster than the collector frees it.
  let filtered = Buffer.alloc(0);
  return {
    async write(rowsData, rows) {
      const size = rows * (rowBytes + 1);
      if (filtered.length < size) filtered = Buffer.alloc(size);
      // Each row is preceded by its filter type (0, none).
      for (let row = 0; row < rows; row++) {
        const start = row * (rowBytes + 1);
        filtered[start] = 0;
        filtered.set(rowsData.subarray(row * rowBytes, (row + 1) * rowBytes), start + 1);
      }
      await new Promise<void>((resolve, reject) => deflate.write(filtered.subarray(0, size), (error) => (error ? reject(error) : resolve())));
    },
    async end() {
      deflate.end();
      await ended;
      const header = Buffer.alloc(13);
      header.writeUInt32BE(width, 0);
      header.writeUInt32BE(height, 4);
      const palette = 'palette' in pixels ? [chunk('PLTE', pixels.palette)] : [];
      header[8] = 'palette' in pixels ? pixels.bits : 8; // bits per sample (per index)
      header[9] = 'palette' in pixels ? PALETTE : COLOR_TYPE[pixels.channels];
      return Buffer.concat([SIGNATURE, chunk('IHDR', header), ...palette, ...compressed.map((data) => chunk('IDAT', data)), chunk('IEND', Buffer.alloc(0))]);
    },
  };
}
