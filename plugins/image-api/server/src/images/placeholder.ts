/**
 * What a page paints before an image arrives (contract §14): a ThumbHash (base64; thumbhash.js, which
 * wants at most 100×100 RGBA) and the dominant colour (`#rrggbb`, libvips' histogram peak). Both come
 * from pixels the upload has decoded already (image-variants.ts hands the `.md` variant's), shrunk to
 * 100 px: no second decode of the original.
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

export async function placeholderOf({ data, width, height, channels }: RawPixels): Promise<Placeholder> {
  const small = sharp(data, { raw: { width, height, channels } })
    .resize(THUMBHASH_EDGE, THUMBHASH_EDGE, { fit: 'inside' })
    .toColourspace('srgb')
    .ensureAlpha();
  const { data: rgba, info } = await small.raw().toBuffer({ resolveWithObject: true });
  const tiny = { raw: { width: info.width, height: info.height, channels: 4 as const } };
  const { dominant } = await sharp(rgba, tiny).removeAlpha().stats();
  return {
    thumbHash: Buffer.from(rgbaToThumbHash(info.width, info.height, rgba)).toString('base64'),
    dominantColor: `#${hex(dominant.r)}${hex(dominant.g)}${hex(dominant.b)}`,
  };
}
