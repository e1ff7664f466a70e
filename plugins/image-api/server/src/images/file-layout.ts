/**
 * What an encoded file holds, read from its own bytes (not from what an encoder was asked for or
 * reported: libvips reports a palette's index size as its bits, 1 to 8 for a GIF, and the channels
 * of the pixels it encoded, not of the file it wrote). The image JSON's `bits` and `channels` come from here (image-variants.ts), and
 * the variants' encoding follows the source's (palette, grey, lossless WebP).
 *
 * The walks are bounded by the bytes: each step moves forward, a length past the end stops the walk,
 * and what cannot be read gives null (the caller keeps what the encoder reported).
 */

export interface FileLayout {
  /** Bits per channel: a palette's entries (GIF, palette PNG) are 8 bits a channel. */
  bits: number;
  /**
   * Channels the file holds: 1 grey, 2 grey and alpha, 3 colour, 4 colour and alpha. A PNG's tRNS
   * and a GIF's transparent index count as alpha where they are declared (decoders give them an
   * alpha channel): libvips declares one in every GIF it writes.
   */
  channels: number;
  /** Colours are indices into a palette (PNG colour type 3, GIF). */
  palette: boolean;
  /** Coded without loss: a PNG or GIF, a WebP whose first image is VP8L. */
  lossless: boolean;
}

export type LayoutFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

/** The file's layout, or null when its header cannot be read (AVIF: not read here). */
export function layoutOf(bytes: Buffer, format: LayoutFormat): FileLayout | null {
  switch (format) {
    case 'png':
      return pngLayout(bytes);
    case 'gif':
      return gifLayout(bytes);
    case 'jpeg':
      return jpegLayout(bytes);
    case 'webp':
      return webpLayout(bytes);
    default:
      return null;
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Colour type: channels without transparency. */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 3, 4: 2, 6: 4 };

/** IHDR's depth and colour type; a tRNS chunk before the image data adds alpha to grey, RGB and palette images. */
function pngLayout(bytes: Buffer): FileLayout | null {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  const depth = bytes[24];
  const colourType = bytes[25];
  const channels = PNG_CHANNELS[colourType];
  if (channels === undefined) return null;
  let transparency = false;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') break;
    if (type === 'tRNS') transparency = true;
    at += 12 + length;
  }
  const palette = colourType === 3;
  return { bits: palette ? 8 : depth, channels: channels + (transparency && channels !== 2 && channels !== 4 ? 1 : 0), palette, lossless: true };
}

const GIF_EXTENSION = 0x21;
const GIF_IMAGE = 0x2c;
const GIF_TRAILER = 0x3b;
const GRAPHIC_CONTROL = 0xf9;

/** The offset past a run of GIF data sub-blocks starting at `at`, or -1 when they run past the end. */
function pastSubBlocks(bytes: Buffer, at: number): number {
  while (at < bytes.length) {
    const size = bytes[at];
    if (size === 0) return at + 1;
    at += 1 + size;
  }
  return -1;
}

/** A GIF holds 8-bit palette entries; a graphic control extension with its transparency flag set (any frame's) declares alpha. */
function gifLayout(bytes: Buffer): FileLayout | null {
  if (bytes.length < 13 || bytes.toString('latin1', 0, 4) !== 'GIF8') return null;
  const globalTable = bytes[10] & 0x80 ? 3 * 2 ** ((bytes[10] & 7) + 1) : 0;
  let transparency = false;
  for (let at = 13 + globalTable; at < bytes.length && !transparency; ) {
    const block = bytes[at];
    if (block === GIF_TRAILER) break;
    if (block === GIF_EXTENSION) {
      if (at + 1 >= bytes.length) break;
      // The graphic control extension's first sub-block: size 4, then its packed byte (bit 0: transparent index).
      if (bytes[at + 1] === GRAPHIC_CONTROL && at + 3 < bytes.length && bytes[at + 2] >= 1) transparency = (bytes[at + 3] & 1) === 1;
      at = pastSubBlocks(bytes, at + 2);
    } else if (block === GIF_IMAGE) {
      if (at + 10 > bytes.length) break;
      const localTable = bytes[at + 9] & 0x80 ? 3 * 2 ** ((bytes[at + 9] & 7) + 1) : 0;
      // Descriptor (10 bytes), local table, LZW code size, data sub-blocks.
      at = pastSubBlocks(bytes, at + 10 + localTable + 1);
    } else {
      break;
    }
    if (at < 0) break;
  }
  return { bits: 8, channels: transparency ? 4 : 3, palette: true, lossless: true };
}

/** Start-of-frame markers: baseline, extended, progressive and lossless, Huffman or arithmetic (not DHT C4, JPG C8, DAC CC). */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** The frame header's sample precision and component count (1 grey, 3 colour, 4 CMYK). */
function jpegLayout(bytes: Buffer): FileLayout | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  for (let at = 2; at + 4 <= bytes.length; ) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Markers without a length: TEM and RSTn; SOS's scan data before the frame header means there is none.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null;
    const length = bytes.readUInt16BE(at + 2);
    if (isStartOfFrame(marker)) {
      if (at + 10 > bytes.length) return null;
      return { bits: bytes[at + 4], channels: bytes[at + 9], palette: false, lossless: marker === 0xc3 || marker === 0xc7 || marker === 0xcb || marker === 0xcf };
    }
    at += 2 + length;
  }
  return null;
}

/** VP8L's header: signature 0x2f, then 14 bits of width - 1, 14 of height - 1, and the alpha-is-used bit. */
const vp8lHasAlpha = (bytes: Buffer, data: number) => data + 5 <= bytes.length && bytes[data] === 0x2f && (bytes[data + 4] & 0x10) !== 0;

/**
 * The chunks of a WebP (and of its animation frames): alpha is held where an ALPH chunk or a VP8L
 * image with its alpha bit is (the VP8X flag is only a claim: exiftool writes files whose flag is 0);
 * lossless when the first image is VP8L.
 */
function webpLayout(bytes: Buffer): FileLayout | null {
  if (bytes.length < 20 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return null;
  let alpha = false;
  let firstImage: string | null = null;
  const walk = (start: number, end: number, inFrame: boolean) => {
    for (let at = start; at + 8 <= end; ) {
      const type = bytes.toString('latin1', at, at + 4);
      const size = bytes.readUInt32LE(at + 4);
      const data = at + 8;
      if (type === 'ALPH') alpha = true;
      if (type === 'VP8 ' || type === 'VP8L') firstImage ??= type;
      if (type === 'VP8L' && vp8lHasAlpha(bytes, data)) alpha = true;
      // An animation frame: 16 bytes of position, size and timing, then its own chunks (frames hold no frames).
      if (type === 'ANMF' && !inFrame) walk(data + 16, Math.min(end, data + size), true);
      at = data + size + (size % 2);
    }
  };
  walk(12, bytes.length, false);
  if (firstImage === null) return null;
  return { bits: 8, channels: alpha ? 4 : 3, palette: false, lossless: firstImage === 'VP8L' };
}
