/**
 * What a page paints before an image arrives (docs/api.md, "The image object"): a ThumbHash (base64; thumbhash.js, which
 * wants at most 100×100 RGBA) and the dominant colour (`#rrggbb`). Both come from pixels the upload
 * has decoded already (image-variants.ts hands the `.md` variant's), shrunk once to 100 px: no second
 * decode of the original. The dominant colour is the peak of a 4096-bin histogram (4 bits a channel,
 * as libvips' `stats().dominant`), counted here over those 10,000 pixels: sharp's stats() took 7.7 ms
 * of CPU for it (a tenth of a 12 MP upload's), this takes about 0.1 ms.
 */
import sharp from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';

export interface Placeholder {
  /** ThumbHash, standard base64. */
  thumbHash: string;
  /** `#rrggbb`. */
  dominantColor: string;
}

/** Raw pixels as sharp describes them (`info` of a raw toBuffer). */
export interface RawPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** ThumbHash's largest input edge. */
const THUMBHASH_EDGE = 100;

const hex = (value: number) => Math.round(value).toString(16).padStart(2, '0');

/** Bits kept of each channel in the histogram. */
const BIN_BITS = 4;

/** The most frequent colour of RGBA pixels (transparent ones left out), as the centre of its bin. */
function dominantColour(rgba: Buffer): string {
  const counts = new Uint32Array(1 << (3 * BIN_BITS));
  const shift = 8 - BIN_BITS;
  let best = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if (rgba[i + 3] < 128) continue;
    const bin = ((rgba[i] >> shift) << (2 * BIN_BITS)) | ((rgba[i + 1] >> shift) << BIN_BITS) | (rgba[i + 2] >> shift);
    if (++counts[bin] > counts[best]) best = bin;
  }
  const mask = (1 << BIN_BITS) - 1;
  const centre = (value: number) => (value << shift) + (1 << (shift - 1));
  return `#${hex(centre(best >> (2 * BIN_BITS)))}${hex(centre((best >> BIN_BITS) & mask))}${hex(centre(best & mask))}`;
}

export async function placeholderOf({ data, width, height, channels }: RawPixels): Promise<Placeholder> {
  let small = sharp(data, { raw: { width, height, channels } }).resize(THUMBHASH_EDGE, THUMBHASH_EDGE, { fit: 'inside' });
  // Grey (with or without alpha) becomes RGB: ThumbHash reads four channels a pixel.
  if (channels < 3) small = small.toColourspace('srgb');
  const { data: rgba, info } = await small.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    thumbHash: Buffer.from(rgbaToThumbHash(info.width, info.height, rgba)).toString('base64'),
    dominantColor: dominantColour(rgba),
  };
}
