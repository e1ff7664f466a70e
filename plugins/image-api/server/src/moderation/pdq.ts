/**
 * PDQ, Meta's perceptual hash of photos (a 256-bit hash and a quality 0..100), ported from the
 * reference in github.com/facebook/ThreatExchange, `pdq/cpp` (hashing/pdqhashing.cpp,
 * downscaling/downscaling.cpp, hashing/torben.cpp; BSD licence), checked against `pdq/python`'s
 * expected hashes (plugins/image-api/tests/moderation/pdq.test.ts). No npm package implements it.
 *
 * The steps, as the reference takes them: luminance (Rec. 601 weights) → two X,Y passes of 1-D box
 * filters (Jarosz: a tent filter) with windows of ceil(side / 128) → decimation to 64×64 → the
 * quality metric on that 64×64 → the DCT's coefficients (1..16)×(1..16) → one bit per coefficient,
 * set when it is above their median. Buffers are float32 as in the C++; sums run in doubles (the
 * Python port's choice), which moves a hash by no more than a coefficient at the median would.
 *
 * Two hashes of one photo, re-encoded or resized, are typically within 31 bits of each other (PDQ's
 * usual match threshold); unrelated photos are around 128 apart.
 */
import sharp from 'sharp';

/** Hex length of a hash: 256 bits as 16 words of 16 bits, the last word first (the reference's format). */
export const PDQ_HEX_LENGTH = 64;
/** The reference tools hash a copy at most this wide and high: the 64×64 result is the same, faster. */
export const PDQ_DOWNSAMPLE_MAX = 512;
/**
 * The reference's advice: discard hashes of quality 49 or less (featureless images, which hash alike):
 * neither list them nor look them up.
 */
export const PDQ_MIN_QUALITY = 50;
/** Sides under this give the reference's empty hash (all zeros) and quality 0. */
const MIN_HASHABLE_DIM = 5;

const LUMA_R = 0.299;
const LUMA_G = 0.587;
const LUMA_B = 0.114;

export interface PdqHash {
  /** 64 hex digits (lower case). */
  hash: string;
  /** 0..100: how much detail the image has; hashes of near-flat images (under ~50) match poorly. */
  quality: number;
}

/** The DCT matrix: rows 1..16 of the 64-point DCT-II (16×64, row-major), float32 as in the C++. */
const DCT = (() => {
  const matrix = new Float32Array(16 * 64);
  const scale = Math.sqrt(2 / 64);
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 64; j++) matrix[i * 64 + j] = scale * Math.cos((Math.PI / 2 / 64) * (i + 1) * (2 * j + 1));
  }
  return matrix;
})();

/** The hash of an encoded image (any format sharp reads; the first frame), upright as it is shown. */
export async function pdqOf(input: Buffer): Promise<PdqHash> {
  const { data, info } = await sharp(input)
    .autoOrient()
    .resize(PDQ_DOWNSAMPLE_MAX, PDQ_DOWNSAMPLE_MAX, { fit: 'inside', withoutEnlargement: true })
    // Transparency on white, as an upload's screening reads its pixels (screening.ts): the same
    // convention on both sides, or a transparent image's hidden colours would take its re-upload
    // far from the hash its takedown listed. (The reference drops alpha; opaque images hash alike.)
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`pdq: expected 3 channels, sharp gave ${info.channels}`);
  return pdqFromRgb(data, info.width, info.height);
}

/** The hash of raw RGB pixels (3 bytes a pixel, row-major, no padding). */
export function pdqFromRgb(rgb: Uint8Array, width: number, height: number): PdqHash {
  return pdqFromPixels(rgb, width, height, 3);
}

/**
 * The hash of raw pixels of 1 to 4 channels (grey, grey and alpha, RGB, RGBA; 8 bits, row-major, no
 * padding), transparency as on white: what an upload's decoded medium holds (screening.ts), read
 * without converting it first.
 */
export function pdqFromPixels(pixels: Uint8Array, width: number, height: number, channels: 1 | 2 | 3 | 4): PdqHash {
  if (pixels.length < width * height * channels) throw new Error(`pdq: ${pixels.length} bytes for ${width}×${height} ${CHANNEL_NAMES[channels]}`);
  if (width < MIN_HASHABLE_DIM || height < MIN_HASHABLE_DIM) return { hash: '0'.repeat(PDQ_HEX_LENGTH), quality: 0 };
  const [planeA, planeB] = planes(width * height);
  const row = reused('row', 4 * width);
  if (width === 64 && height === 64) {
    // The reference skips the filter here (a window of 1 would leave the plane as it is anyway).
    for (let r = 0; r < 64; r++) {
      lumaRow(pixels, r * 64 * channels, 64, channels, row);
      BLOCK64.set(row.subarray(0, 64), r * 64);
    }
  } else {
    // The reference's steps (luminance, then two X,Y passes of the box filter, then decimation),
    // rearranged to compute what the decimation reads and nothing else, in the same order of
    // operations on each value (bit for bit the same), in buffers kept between hashes: the first X
    // pass reads each row's luminance as it is made; X passes run four rows at once; the first Y
    // pass runs along rows (a running sum per column: memory read in order); the second only down
    // the 64 columns sampled. A 500×500 hash took 3.4 ms, now 2.3 (a busy machine's minimums).
    const alongRows = windowSize(width);
    const alongCols = windowSize(height);
    for (let r = 0; r < height; r += 4) {
      const rows = Math.min(4, height - r);
      for (let k = 0; k < rows; k++) lumaRow(pixels, (r + k) * width * channels, width, channels, row.subarray(k * width, (k + 1) * width));
      boxAlong(row, planeA, 0, r * width, rows, width, alongRows);
    }
    boxDown(planeA, planeB, height, width, alongCols);
    for (let r = 0; r < height; r += 4) boxAlong(planeB, planeA, r * width, r * width, Math.min(4, height - r), width, alongRows);
    boxDownSampled(planeA, height, width, alongCols, BLOCK64);
  }
  const quality = qualityOf(BLOCK64);
  return { hash: bitsOf(dct64To16(BLOCK64)), quality };
}

const CHANNEL_NAMES = { 1: 'grey', 2: 'grey and alpha', 3: 'RGB', 4: 'RGBA' } as const;

/**
 * Buffers kept between hashes (one at a time: JavaScript on one thread), sized for the planes of
 * a picture of PDQ_DOWNSAMPLE_MAX a side (2 MB in all); a larger one has its own, let go after.
 */
const REUSED_SAMPLES = PDQ_DOWNSAMPLE_MAX * PDQ_DOWNSAMPLE_MAX;
const buffers = new Map<string, Float32Array>();
const BLOCK64 = new Float32Array(64 * 64);

function reused(name: string, length: number): Float32Array {
  if (length > REUSED_SAMPLES) return new Float32Array(length);
  let buffer = buffers.get(name);
  if (!buffer || buffer.length < length) buffers.set(name, (buffer = new Float32Array(length)));
  return buffer.length === length ? buffer : buffer.subarray(0, length);
}

const planes = (samples: number) => [reused('a', samples), reused('b', samples)] as const;

/** One row's luminance (Rec. 601), float32 as the reference's, transparency as on white. */
function lumaRow(pixels: Uint8Array, at: number, width: number, channels: 1 | 2 | 3 | 4, out: Float32Array): void {
  if (channels === 3) {
    for (let x = 0, p = at; x < width; x++, p += 3) out[x] = LUMA_R * pixels[p] + LUMA_G * pixels[p + 1] + LUMA_B * pixels[p + 2];
  } else if (channels === 4) {
    for (let x = 0, p = at; x < width; x++, p += 4) {
      const a = pixels[p + 3];
      const luma = LUMA_R * pixels[p] + LUMA_G * pixels[p + 1] + LUMA_B * pixels[p + 2];
      out[x] = a === 255 ? luma : (luma * a + 255 * (255 - a)) / 255;
    }
  } else if (channels === 1) {
    for (let x = 0; x < width; x++) out[x] = pixels[at + x];
  } else {
    for (let x = 0, p = at; x < width; x++, p += 2) {
      const a = pixels[p + 1];
      out[x] = a === 255 ? pixels[p] : (pixels[p] * a + 255 * (255 - a)) / 255;
    }
  }
}

/** Window of each box pass: half of what becomes one of the 64 samples (rounded up). */
const windowSize = (side: number) => Math.trunc((side + 2 * 64 - 1) / (2 * 64));

/**
 * A moving average of `window` samples centred on each one, along one row of `length` samples;
 * at the ends, of the samples there are (the reference's four phases).
 */
function box1D(input: Float32Array, output: Float32Array, from: number, to: number, length: number, window: number) {
  const half = Math.trunc((window + 2) / 2); // 7 → 4, 8 → 5
  let li = from;
  let ri = from;
  let oi = to;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < half - 1; i++) {
    sum += input[ri++];
    count++;
  }
  for (let i = 0; i < window - half + 1; i++) {
    sum += input[ri++];
    count++;
    output[oi++] = sum / count;
  }
  for (let i = 0; i < length - window; i++) {
    sum += input[ri++];
    sum -= input[li++];
    output[oi++] = sum / count;
  }
  for (let i = 0; i < half - 1; i++) {
    sum -= input[li++];
    count--;
    output[oi++] = sum / count;
  }
}

/**
 * box1D along `rows` consecutive rows (1 to 4) of `length` samples at once: four running sums are
 * four chains of additions the processor runs side by side, where one row's waits on each of its
 * own (the X passes took 1.4 ms of a 500×500 hash one row at a time).
 */
function boxAlong(input: Float32Array, output: Float32Array, from: number, to: number, rows: number, length: number, window: number) {
  if (rows < 4) {
    for (let k = 0; k < rows; k++) box1D(input, output, from + k * length, to + k * length, length, window);
    return;
  }
  const half = Math.trunc((window + 2) / 2);
  const l1 = length;
  const l2 = 2 * length;
  const l3 = 3 * length;
  let li = from;
  let ri = from;
  let oi = to;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let count = 0;
  for (let i = 0; i < half - 1; i++, ri++) {
    s0 += input[ri];
    s1 += input[ri + l1];
    s2 += input[ri + l2];
    s3 += input[ri + l3];
    count++;
  }
  for (let i = 0; i < window - half + 1; i++, ri++, oi++) {
    s0 += input[ri];
    s1 += input[ri + l1];
    s2 += input[ri + l2];
    s3 += input[ri + l3];
    count++;
    output[oi] = s0 / count;
    output[oi + l1] = s1 / count;
    output[oi + l2] = s2 / count;
    output[oi + l3] = s3 / count;
  }
  for (let i = 0; i < length - window; i++, ri++, li++, oi++) {
    s0 += input[ri];
    s1 += input[ri + l1];
    s2 += input[ri + l2];
    s3 += input[ri + l3];
    s0 -= input[li];
    s1 -= input[li + l1];
    s2 -= input[li + l2];
    s3 -= input[li + l3];
    output[oi] = s0 / count;
    output[oi + l1] = s1 / count;
    output[oi + l2] = s2 / count;
    output[oi + l3] = s3 / count;
  }
  for (let i = 0; i < half - 1; i++, li++, oi++) {
    s0 -= input[li];
    s1 -= input[li + l1];
    s2 -= input[li + l2];
    s3 -= input[li + l3];
    count--;
    output[oi] = s0 / count;
    output[oi + l1] = s1 / count;
    output[oi + l2] = s2 / count;
    output[oi + l3] = s3 / count;
  }
}

let columnSums = new Float64Array(0);

/**
 * box1D down every column of a `rows`×`cols` plane at once, row after row: a running sum per column,
 * in box1D's order, memory read in order (one column at a time strides across all of it).
 */
function boxDown(input: Float32Array, output: Float32Array, rows: number, cols: number, window: number) {
  if (columnSums.length < cols) columnSums = new Float64Array(Math.max(cols, PDQ_DOWNSAMPLE_MAX));
  const sums = columnSums;
  sums.fill(0, 0, cols);
  const half = Math.trunc((window + 2) / 2);
  let li = 0;
  let ri = 0;
  let count = 0;
  for (let i = 0; i < half - 1; i++, ri += cols) {
    for (let k = 0; k < cols; k++) sums[k] += input[ri + k];
    count++;
  }
  let oi = 0;
  for (let i = 0; i < window - half + 1; i++, ri += cols, oi += cols) {
    count++;
    for (let k = 0; k < cols; k++) {
      const sum = sums[k] + input[ri + k];
      sums[k] = sum;
      output[oi + k] = sum / count;
    }
  }
  for (let i = 0; i < rows - window; i++, ri += cols, li += cols, oi += cols) {
    for (let k = 0; k < cols; k++) {
      let sum = sums[k] + input[ri + k];
      sum -= input[li + k];
      sums[k] = sum;
      output[oi + k] = sum / count;
    }
  }
  for (let i = 0; i < half - 1; i++, li += cols, oi += cols) {
    count--;
    for (let k = 0; k < cols; k++) {
      const sum = sums[k] - input[li + k];
      sums[k] = sum;
      output[oi + k] = sum / count;
    }
  }
}

/** The 64×64 samples: box1D down the column of each cell's centre, kept at each cell's centre row. */
function boxDownSampled(input: Float32Array, rows: number, cols: number, window: number, out: Float32Array) {
  const half = Math.trunc((window + 2) / 2);
  const column = reused('column', rows);
  for (let j = 0; j < 64; j++) {
    const c = Math.trunc(((j + 0.5) * cols) / 64);
    box1DStrided(input, column, c, cols, rows, half, window);
    for (let i = 0; i < 64; i++) out[i * 64 + j] = column[Math.trunc(((i + 0.5) * rows) / 64)];
  }
}

/** box1D down one column (samples `stride` apart), into `output` from 0. */
function box1DStrided(input: Float32Array, output: Float32Array, from: number, stride: number, length: number, half: number, window: number) {
  let li = from;
  let ri = from;
  let oi = 0;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < half - 1; i++, ri += stride) {
    sum += input[ri];
    count++;
  }
  for (let i = 0; i < window - half + 1; i++, ri += stride) {
    sum += input[ri];
    count++;
    output[oi++] = sum / count;
  }
  for (let i = 0; i < length - window; i++, ri += stride, li += stride) {
    sum += input[ri];
    sum -= input[li];
    output[oi++] = sum / count;
  }
  for (let i = 0; i < half - 1; i++, li += stride) {
    sum -= input[li];
    count--;
    output[oi++] = sum / count;
  }
}

/** The reference's heuristic: quantized gradients summed (integer steps truncated as C++ does). */
function qualityOf(block: Float32Array): number {
  let gradientSum = 0;
  for (let i = 0; i < 63; i++) {
    for (let j = 0; j < 64; j++) gradientSum += Math.abs(Math.trunc(((block[i * 64 + j] - block[(i + 1) * 64 + j]) * 100) / 255));
  }
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 63; j++) gradientSum += Math.abs(Math.trunc(((block[i * 64 + j] - block[i * 64 + j + 1]) * 100) / 255));
  }
  return Math.min(100, Math.trunc(gradientSum / 90));
}

const DCT_T = new Float32Array(16 * 64);
const DCT_B = new Float32Array(16 * 16);

/** B = D A Dᵀ: only the 16×16 low frequencies past DC, computed directly (the reference's choice). */
function dct64To16(block: Float32Array): Float32Array {
  const t = DCT_T;
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 64; j++) {
      let sum = 0;
      for (let k = 0; k < 64; k++) sum += DCT[i * 64 + k] * block[k * 64 + j];
      t[i * 64 + j] = sum;
    }
  }
  const b = DCT_B;
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 16; j++) {
      let sum = 0;
      for (let k = 0; k < 64; k++) sum += t[i * 64 + k] * DCT[j * 64 + k];
      b[i * 16 + j] = sum;
    }
  }
  return b;
}

/** Torben's median (the reference's): the lower median of `values`, without sorting. */
function torben(values: Float32Array): number {
  const n = values.length;
  const mid = Math.trunc((n + 1) / 2);
  let min = values[0];
  let max = values[0];
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  let less: number, greater: number, equal: number, guess: number, maxLess: number, minGreater: number;
  for (;;) {
    guess = Math.fround((min + max) / 2);
    less = greater = equal = 0;
    maxLess = min;
    minGreater = max;
    for (const v of values) {
      if (v < guess) {
        less++;
        if (v > maxLess) maxLess = v;
      } else if (v > guess) {
        greater++;
        if (v < minGreater) minGreater = v;
      } else equal++;
    }
    if (less <= mid && greater <= mid) break;
    if (less > greater) max = maxLess;
    else min = minGreater;
  }
  if (less >= mid) return maxLess;
  if (less + equal >= mid) return guess;
  return minGreater;
}

/** Bit i*16+j for coefficient (i, j) above the median; word i holds row i; hex from word 15 down. */
function bitsOf(coefficients: Float32Array): string {
  const median = torben(coefficients);
  let hex = '';
  for (let i = 15; i >= 0; i--) {
    let word = 0;
    for (let j = 0; j < 16; j++) if (coefficients[i * 16 + j] > median) word |= 1 << j;
    hex += word.toString(16).padStart(4, '0');
  }
  return hex;
}

/** A hash's 16 words (bands of 16 bits), word 0 first: word i is hex digits 60-4i..63-4i. */
export function pdqBands(hash: string): number[] {
  const bands: number[] = [];
  for (let i = 0; i < 16; i++) bands.push(parseInt(hash.slice(60 - 4 * i, 64 - 4 * i), 16));
  return bands;
}

/** Whether `hash` is a PDQ hash as written here: 64 hex digits, lower case. */
export const isPdqHash = (hash: string): boolean => /^[0-9a-f]{64}$/.test(hash);

const HEX = /^[0-9a-fA-F]*$/;
const POPCOUNT_8 = Uint8Array.from({ length: 256 }, (_, v) => {
  let count = 0;
  for (let x = v; x; x &= x - 1) count++;
  return count;
});

/** Bits that differ between two hex strings of one length (PDQ hashes: 0..256). */
export function hammingDistance(a: string, b: string): number {
  if (a.length !== b.length || a.length % 2 || !HEX.test(a) || !HEX.test(b)) throw new Error('hammingDistance: two hex strings of one even length');
  let distance = 0;
  for (let i = 0; i < a.length; i += 2) distance += POPCOUNT_8[parseInt(a.slice(i, i + 2), 16) ^ parseInt(b.slice(i, i + 2), 16)];
  return distance;
}
