/** The messages between heic-variants.ts and its worker (heic-worker.ts), and what the worker decodes. */
import type { VariantSet, VariantOptions } from '../variant-set';
import type { ErrorOrigin } from '../../http/api-error';
import type { YuvMatrix } from './yuv-to-rgb';

/**
 * What the worker is sent: the file, the upload's options (the pixel cap checked again before
 * decoding) and `width`; `native` when heif-convert may decode (the worker then answers with a
 * plan when the image is one it decodes faithfully); `y4m`, heif-convert's frame of it, with the plan.
 */
export interface HeicJob {
  bytes: Uint8Array;
  options: VariantOptions;
  width: number | null;
  native?: boolean;
  y4m?: { frame: Uint8Array; plan: NativePlan };
}

/** What heif-convert's frame is turned into (the primary image's size upright, its matrix, its profile). */
export interface NativePlan extends YuvMatrix {
  width: number;
  height: number;
  icc: Buffer | null;
}

/** What the worker answers: the variants, the refusal (an error-table row), or the plan of a native decode. */
export type HeicAnswer = { variants: VariantSet } | { refusal: ErrorOrigin } | { native: NativePlan };

/** A HEIC's primary image, decoded: upright, 8 bits a sample. */
export interface DecodedPixels {
  /** Interleaved RGB, or RGBA (`channels` 4) when the image has alpha; rows top to bottom. */
  pixels: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
  /**
   * The ICC profile of the colour space the numbers are in (a phone's Display P3): the file's own, or
   * one standing for its nclx code points; null for sRGB (or a colour space left undescribed).
   */
  icc: Buffer | null;
}
