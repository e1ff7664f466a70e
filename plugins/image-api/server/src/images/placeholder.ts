/**
 * What a page paints before an image arrives (docs/api.md, "The image object"): a ThumbHash (base64; thumbhash.js, which
 * wants at most 100×100 RGBA) and the dominant colour (`#rrggbb`). Both come from pixels the upload
 * has decoded already (image-variants.ts hands the `.md` variant's), averaged down to 100 px
 * (shrinkToRgba): no second decode of the original, no sharp call. The dominant colour is the peak
 * of a 4096-bin histogram (4 bits a channel, as libvips' `stats().dominant`), counted here over
 * those 10,000 pixels: sharp's stats() took 7.7 ms of CPU for it (a tenth of a 12 MP upload's), this
 * takes about 0.1 ms. The ThumbHash keeps at most 7 frequencies an axis, so it reads those pixels
 * averaged down to 32 px: 0.11 ms where 100 px took 1.1 ms (docs/performance.md, "Placeholders").
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

/** The edge the pixels are shrunk to (thumbhash.js takes at most 100×100), and the dominant colour counted over. */
const PLACEHOLDER_EDGE = 100;
/**
 * The most pixels averaged on the JavaScript thread (about 1.3 ms when every one was read; sampled,
 * sampledStep, far less): a medium of a very tall image (500 px wide, any height) is shrunk by
 * sharp, off that thread, instead.
 */
const JS_SHRINK_MAX_PIXELS = 500_000;
/** The ThumbHash's input edge: enough for its 7 frequencies an axis. */
export const THUMBHASH_EDGE = 32;

const hex = (value: number) => Math.round(value).toString(16).padStart(2, '0');

/** Bits kept of each channel in the histogram. */
const BIN_BITS = 4;

/** The most frequent colour of RGBA pixels (transparent ones left out), as the centre of its bin. */
function dominantColour(rgba: Uint8Array): string {
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

/** The size pixels are shrunk to so as to fit `edge`, keeping their aspect ratio (never larger). */
function shrunkSize(width: number, height: number, edge: number): { width: number; height: number } {
  const scale = Math.min(1, edge / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Pixels (grey, grey and alpha, RGB or RGBA, 8 bits a sample) as RGBA, averaged down to fit `edge`:
 * each output pixel the mean of the input pixels it covers, weighted by their alpha as a resize
 * does, so transparent pixels lend no colour. A box filter: for a placeholder it looks as a resize's
 * does. The loops are one per layout, with nothing per pixel but the sums (how many pixels an output
 * pixel covers follows from the grid): about 0.45 ms for a 500 × 333 RGB medium where one loop for
 * every layout took 0.9 ms on the upload's JavaScript thread (measured on a quiet machine;
 * docs/performance.md, "HEIC, AVIF and placeholders").
 *
 * `step` > 1 reads every step-th row and column of each output pixel's box, from its first: a
 * box of 5 × 5 pixels is averaged from 3 × 3 of them at step 2 (sampledStep picks it).
 */
export function shrinkToRgba(
  data: Uint8Array,
  width: number,
  height: number,
  channels: 1 | 2 | 3 | 4,
  edge: number,
  step = 1
): { rgba: Uint8Array; width: number; height: number } {
  // A step of 0, a fraction or a negative one would read nothing, NaN or never end.
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`image-api: a shrink's step is a whole number from 1 (${step})`);
  if (edge >= Math.max(width, height) && channels === 4) return { rgba: data, width, height };
  const { width: outWidth, height: outHeight } = shrunkSize(width, height, edge);
  // The input columns each output column covers: [firstColumn[ox], firstColumn[ox + 1]).
  const firstColumn = new Int32Array(outWidth + 1);
  for (let x = width - 1; x >= 0; x--) firstColumn[Math.min(outWidth - 1, Math.floor((x * outWidth) / width))] = x;
  firstColumn[outWidth] = width;
  // The columns read of each box (every step-th from its first), and the rows read of each output row.
  const columnCount = new Int32Array(outWidth);
  for (let ox = 0; ox < outWidth; ox++) columnCount[ox] = Math.ceil((firstColumn[ox + 1] - firstColumn[ox]) / step);
  const rowCount = new Int32Array(outHeight);
  const stride = channels * step;
  // Per output pixel and input channel: Σ value (opaque layouts), or Σ value·alpha and Σ alpha;
  // a run of input pixels is summed in locals and added once.
  const sums = new Float64Array(outWidth * outHeight * channels);
  for (let y = 0, outRow = 0, firstRow = 0; y < height; y++) {
    const row = Math.min(outHeight - 1, Math.floor((y * outHeight) / height));
    if (row !== outRow) {
      outRow = row;
      firstRow = y;
    }
    if ((y - firstRow) % step !== 0) continue;
    rowCount[outRow]++;
    let o = outRow * outWidth * channels;
    const rowStart = y * width * channels;
    for (let ox = 0; ox < outWidth; ox++, o += channels) {
      let i = rowStart + firstColumn[ox] * channels;
      const end = rowStart + firstColumn[ox + 1] * channels;
      if (channels === 3) {
        let r = 0, g = 0, b = 0;
        for (; i < end; i += stride) {
          r += data[i];
          g += data[i + 1];
          b += data[i + 2];
        }
        sums[o] += r;
        sums[o + 1] += g;
        sums[o + 2] += b;
      } else if (channels === 4) {
        let r = 0, g = 0, b = 0, a = 0;
        for (; i < end; i += stride) {
          const alpha = data[i + 3];
          r += data[i] * alpha;
          g += data[i + 1] * alpha;
          b += data[i + 2] * alpha;
          a += alpha;
        }
        sums[o] += r;
        sums[o + 1] += g;
        sums[o + 2] += b;
        sums[o + 3] += a;
      } else if (channels === 1) {
        let v = 0;
        for (; i < end; i += stride) v += data[i];
        sums[o] += v;
      } else {
        let v = 0, a = 0;
        for (; i < end; i += stride) {
          const alpha = data[i + 1];
          v += data[i] * alpha;
          a += alpha;
        }
        sums[o] += v;
        sums[o + 1] += a;
      }
    }
  }
  const rgba = new Uint8Array(outWidth * outHeight * 4);
  const opaque = channels === 1 || channels === 3;
  const colours = channels < 3 ? 1 : 3;
  for (let oy = 0, p = 0; oy < outHeight; oy++) {
    for (let ox = 0; ox < outWidth; ox++, p++) {
      const s = p * channels;
      const covered = columnCount[ox] * rowCount[oy];
      const alpha = opaque ? 255 * covered : sums[s + colours];
      const divisor = opaque ? covered : alpha;
      for (let c = 0; c < 3; c++) rgba[p * 4 + c] = divisor > 0 ? Math.round(sums[s + (colours === 1 ? 0 : c)] / divisor) : 0;
      rgba[p * 4 + 3] = Math.round(alpha / covered);
    }
  }
  return { rgba, width: outWidth, height: outHeight };
}

/** The same shrink by sharp (libvips' threads), for pixels too many for the JavaScript thread. */
async function shrunkBySharp({ data, width, height, channels }: RawPixels): Promise<{ rgba: Uint8Array; width: number; height: number }> {
  let small = sharp(data, { raw: { width, height, channels } }).resize(PLACEHOLDER_EDGE, PLACEHOLDER_EDGE, { fit: 'inside' });
  // Grey (with or without alpha) becomes RGB: ThumbHash reads four channels a pixel.
  if (channels < 3) small = small.toColourspace('srgb');
  const { data: rgba, info } = await small.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba, width: info.width, height: info.height };
}

/**
 * The step at which pixels are read when shrunk to fit `edge` (shrinkToRgba): every box is read
 * along each axis at least twice (the narrowest box of either axis sets it), at most half a box
 * apart. A 500 × 333 medium's boxes are 4 or 5 pixels a side, read at their first, third (and
 * fifth): 9 pixels of 25, 0.40 to 0.65 ms where all of them took 0.9 to 1.4 on the same busy host
 * (docs/performance.md, "HEIC, AVIF and placeholders"). A box holds no detail a ThumbHash keeps (7
 * frequencies an axis), and its noise averages out in the 100 px.
 */
export function sampledStep(width: number, height: number, edge: number): number {
  const out = shrunkSize(width, height, edge);
  const narrowest = Math.min(Math.floor(width / out.width), Math.floor(height / out.height));
  return Math.max(1, Math.floor(narrowest / 2));
}

export async function placeholderOf({ data, width, height, channels }: RawPixels): Promise<Placeholder> {
  const small =
    width * height <= JS_SHRINK_MAX_PIXELS
      ? shrinkToRgba(data, width, height, channels, PLACEHOLDER_EDGE, sampledStep(width, height, PLACEHOLDER_EDGE))
      : await shrunkBySharp({ data, width, height, channels });
  const hashed = shrinkToRgba(small.rgba, small.width, small.height, 4, THUMBHASH_EDGE);
  return {
    thumbHash: Buffer.from(rgbaToThumbHash(hashed.width, hashed.height, hashed.rgba)).toString('base64'),
    dominantColor: dominantColour(small.rgba),
  };
}
