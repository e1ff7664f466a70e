import sharp from 'sharp';

/**
 * What an animated GIF or WebP holds, read from its bytes here rather than asked of sharp (the library
 * under test): the canvas, the frames (a GIF's image descriptors, a WebP's ANMF chunks), each frame's
 * delay in milliseconds and the loop count. And APNGs, written by hand (sharp writes none).
 */

export interface Animation {
  format: 'gif' | 'webp';
  /** The canvas: a GIF's logical screen, a WebP's VP8X canvas. */
  width: number;
  height: number;
  frames: number;
  /** Each frame's delay, milliseconds. */
  delaysMs: number[];
  /** Times it plays again after the first (GIF: the NETSCAPE2.0 count, 0 for ever; null: no loop block, once), or, for a WebP, times it plays (0: for ever). */
  loops: number | null;
}

/** The offset past a run of GIF data sub-blocks (a size byte, that many bytes; size 0 ends them). */
function pastSubBlocks(bytes: Buffer, at: number): number {
  for (;;) {
    if (at >= bytes.length) throw new Error('GIF: sub-blocks run past the end');
    const size = bytes[at];
    at += 1 + size;
    if (size === 0) return at;
  }
}

const colourTable = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);

export function readGif(bytes: Buffer): Animation {
  if (bytes.toString('latin1', 0, 6) !== 'GIF89a' && bytes.toString('latin1', 0, 6) !== 'GIF87a') throw new Error('not a GIF');
  const width = bytes.readUInt16LE(6);
  const height = bytes.readUInt16LE(8);
  let at = 13 + colourTable(bytes[10]);
  const delaysMs: number[] = [];
  let pendingDelay = 0;
  let loops: number | null = null;
  for (;;) {
    const block = bytes[at];
    if (block === 0x3b) break;
    if (block === 0x21) {
      const label = bytes[at + 1];
      if (label === 0xf9) pendingDelay = bytes.readUInt16LE(at + 4) * 10;
      if (label === 0xff && bytes.toString('latin1', at + 3, at + 14) === 'NETSCAPE2.0') loops = bytes.readUInt16LE(at + 16);
      at = pastSubBlocks(bytes, at + 2);
    } else if (block === 0x2c) {
      delaysMs.push(pendingDelay);
      pendingDelay = 0;
      at = pastSubBlocks(bytes, at + 10 + colourTable(bytes[at + 9]) + 1);
    } else {
      throw new Error(`GIF: unknown block 0x${block?.toString(16)} at ${at}`);
    }
  }
  return { format: 'gif', width, height, frames: delaysMs.length, delaysMs, loops };
}

export function readWebp(bytes: Buffer): Animation {
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') throw new Error('not a WebP');
  let width = 0;
  let height = 0;
  let loops: number | null = null;
  const delaysMs: number[] = [];
  for (let at = 12; at + 8 <= bytes.length; ) {
    const type = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const payload = at + 8;
    if (type === 'VP8X') {
      width = bytes.readUIntLE(payload + 4, 3) + 1;
      height = bytes.readUIntLE(payload + 7, 3) + 1;
    }
    if (type === 'ANIM') loops = bytes.readUInt16LE(payload + 4);
    if (type === 'ANMF') delaysMs.push(bytes.readUIntLE(payload + 12, 3));
    at = payload + size + (size & 1);
  }
  return { format: 'webp', width, height, frames: delaysMs.length, delaysMs, loops };
}

export const readAnimation = (bytes: Buffer): Animation => (bytes.toString('latin1', 0, 3) === 'GIF' ? readGif(bytes) : readWebp(bytes));

/**
 * How many times an animation plays, 0 for ever, across formats: a GIF's loop block counts the times
 * it plays again (none: once), a WebP's ANIM chunk the times it plays.
 */
export const plays = ({ format, loops }: Animation): number => (format === 'webp' ? loops ?? 1 : loops === null ? 1 : loops === 0 ? 0 : loops + 1);

/** CRC-32 of PNG chunks. */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** The data of a PNG's IDAT chunks, in order. */
function idatData(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return Buffer.concat(parts);
}

/** A two-frame APNG (red, then blue), written by hand: sharp writes none. */
export async function apng(width: number, height: number): Promise<Buffer> {
  const frame = (background: string) => sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
  const [red, blue] = await Promise.all([frame('#ff0000'), frame('#0000ff')]);
  const control = (sequence: number) => {
    const data = Buffer.alloc(26);
    data.writeUInt32BE(sequence, 0);
    data.writeUInt32BE(width, 4);
    data.writeUInt32BE(height, 8);
    data.writeUInt16BE(1, 20);
    data.writeUInt16BE(2, 22);
    return pngChunk('fcTL', data);
  };
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(2, 0);
  const sequenced = Buffer.alloc(4);
  sequenced.writeUInt32BE(2, 0);
  const ihdrEnd = 8 + 12 + red.readUInt32BE(8);
  return Buffer.concat([
    red.subarray(0, ihdrEnd),
    pngChunk('acTL', actl),
    control(0),
    pngChunk('IDAT', idatData(red)),
    control(1),
    pngChunk('fdAT', Buffer.concat([sequenced, idatData(blue)])),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
