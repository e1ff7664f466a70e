/**
 * What an image may cost, decided from its header before anything is decoded (image-probe.ts): its
 * pixels (`maxPixels`, a frame's width × height), and for an animation its frames
 * (`maxAnimationFrames`) and all their pixels (`maxAnimationPixels`, frames × width × height).
 *
 * Work on every frame (a `width` resize, a metadata strip; a GIF's colours quantized again) costs
 * about 0.1 to 0.2 µs a pixel and 0.2 to 1.3 ms a frame on one libvips thread (docs/performance.md,
 * "Animations"): a 100×100 GIF of 10,000 frames (100 MP) took 21 s of CPU with `width` before these
 * bounds; the largest animation they allow, about 3 s. The defaults keep the heaviest animation within a few seconds and 16 of them at once under
 * the memory goal (docs/operations.md).
 *
 * Frames are counted here from the GIF's blocks or the WebP's chunks, stopping past the bound: libvips
 * reads a GIF's frame count without decoding (10 ms for 10,000 frames, where decoding them takes
 * 2 s), but keeps a record of every frame while it does (37 MB and 0.1 to 0.5 s for a GIF of 500,000
 * one-pixel frames, which fits in 11.5 MB).
 */
import { errors } from '../http/api-error';
import type { ImageType } from '../config';

export interface ImageLimits {
  /** Pixels of an image, or of each frame of an animation (width × height). */
  maxPixels: number;
  /** Frames of an animation. */
  maxAnimationFrames: number;
  /** Pixels of all the frames of an animation (frames × width × height). */
  maxAnimationPixels: number;
}

export interface ImageSize {
  width: number;
  height: number;
  /** Frames, 1 for a still image. */
  pages: number;
}

const GIF_EXTENSION = 0x21;
const GIF_IMAGE = 0x2c;

/** The offset past a run of GIF data sub-blocks starting at `at` (each a size byte then that many bytes; a zero size ends them). */
function skipSubBlocks(bytes: Buffer, at: number): number {
  while (at < bytes.length) {
    const size = bytes[at];
    at += 1 + size;
    if (size === 0) break;
  }
  return at;
}

/** Image descriptors in a GIF, up to `atMost` + 1. What follows something it cannot read is not counted (libvips refuses or ignores it). */
function gifFrames(bytes: Buffer, atMost: number): number {
  if (bytes.length < 13) return 0;
  // Header (6), logical screen descriptor (7), then the global colour table if its flag is set.
  let at = 13 + (bytes[10] & 0x80 ? 3 * 2 ** ((bytes[10] & 0x07) + 1) : 0);
  let frames = 0;
  while (at < bytes.length && frames <= atMost) {
    const block = bytes[at];
    if (block === GIF_EXTENSION) {
      at = skipSubBlocks(bytes, at + 2);
    } else if (block === GIF_IMAGE) {
      if (at + 10 > bytes.length) break;
      frames++;
      const packed = bytes[at + 9];
      // The descriptor (10), its local colour table, the LZW minimum code size (1), the data.
      at = skipSubBlocks(bytes, at + 10 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0) + 1);
    } else {
      // The trailer, or what no reader would go past.
      break;
    }
  }
  return frames;
}

/** ANMF chunks in a WebP (RIFF) container, up to `atMost` + 1; a still WebP has none. */
function webpFrames(bytes: Buffer, atMost: number): number {
  let frames = 0;
  for (let at = 12; at + 8 <= bytes.length && frames <= atMost; ) {
    if (bytes.toString('latin1', at, at + 4) === 'ANMF') frames++;
    const size = bytes.readUInt32LE(at + 4);
    at += 8 + size + (size & 1);
  }
  return frames;
}

/**
 * The frames of a GIF or WebP read from its container (no pixel decoded), counting no further than
 * `atMost` + 1: enough to know it is past the bound. 1 for other types, which libvips counts.
 */
export function countFrames(bytes: Buffer, type: ImageType, atMost: number): number {
  if (type === 'gif') return Math.max(1, gifFrames(bytes, atMost));
  if (type === 'webp') return Math.max(1, webpFrames(bytes, atMost));
  return 1;
}

/**
 * The refusal (413/315) of an image past any bound, naming the bound. A GIF, still or not, is held to
 * the animation's pixel budget: libvips' GIF loader decodes a whole frame at 4 bytes a pixel before
 * anything else runs, so a 2.3 MB still GIF of 100 MP cost 500 MB for its variants, 1.4 GB with
 * `width` (other loaders stream rows).
 */
export function checkBounds({ width, height, pages, type }: ImageSize & { type?: ImageType }, limits: ImageLimits): void {
  if (width * height > limits.maxPixels) throw errors.tooManyPixels(limits.maxPixels);
  if (type === 'gif' && pages <= 1 && width * height > limits.maxAnimationPixels) throw errors.gifTooLarge(limits.maxAnimationPixels);
  if (pages <= 1) return;
  const past = boundPassed({ width, height, pages }, limits);
  if (past === 'frames') throw errors.tooManyFrames(limits.maxAnimationFrames);
  if (past === 'pixels') throw errors.animationTooLarge(limits.maxAnimationPixels);
}

/**
 * The animation bound that work on every frame of `pages` frames of width × height would pass, or
 * null: an upload's animation (checkBounds), and an animated transformation result, its frames at the
 * size they are scaled to (delivery/transforms.ts).
 */
export function boundPassed(
  { width, height, pages }: ImageSize,
  limits: Pick<ImageLimits, 'maxAnimationFrames' | 'maxAnimationPixels'>
): 'frames' | 'pixels' | null {
  if (pages > limits.maxAnimationFrames) return 'frames';
  if (pages * width * height > limits.maxAnimationPixels) return 'pixels';
  return null;
}

/** The refusal of an animation with more frames than allowed, from its container alone. */
export function checkFrames(bytes: Buffer, type: ImageType, limits: ImageLimits): void {
  if (countFrames(bytes, type, limits.maxAnimationFrames) > limits.maxAnimationFrames) throw errors.tooManyFrames(limits.maxAnimationFrames);
}
