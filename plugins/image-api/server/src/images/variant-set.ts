/**
 * What the image work makes (image-variants.ts) and what it is told, apart from the work itself:
 * the HEIC worker's messages carry them (decoders/heic-variants.ts), and storage records them.
 */
import type { Placeholder } from './placeholder';

export type OutputFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

export interface EncodedImage {
  buffer: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
  channels: number;
  bits: number;
}

export interface VariantSet {
  original: EncodedImage;
  thumb: EncodedImage;
  medium: EncodedImage;
  placeholder: Placeholder;
  /**
   * The medium's pixels as the image work decoded them, when asked for (`screeningPixels`) and
   * made from one decode (not a HEIC's, nor an animation's): what moderation's screening reads.
   */
  pixels?: DecodedMedium;
}

/** Raw pixels: 8 bits a channel, 1 to 4 channels (grey, grey and alpha, RGB, RGBA), sRGB, row-major. */
export interface DecodedMedium {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

export interface VariantOptions {
  thumbSize: number;
  mediumWidth: number;
  jpegQuality: number;
  maxPixels: number;
  /** Keep EXIF/XMP/IPTC in stored originals (default: removed). */
  keepExif: boolean;
  /** What decodes a HEIC's pixels: 'auto', 'wasm' or heif-convert's path (decoders/heif-convert.ts). */
  heicDecoder: string;
  /** Longest a HEIC's decode and variants may take, ms. */
  heicTimeoutMs: number;
  /** Parent of the temp folder a native HEIC decode writes in (the `tmpDir` option; null: the default). */
  tmpDir: string | null;
  /**
   * Hand the medium's decoded pixels back (VariantSet.pixels) when they are within
   * SCREENING_PIXELS_EDGE a side: the upload's screening will read them.
   */
  screeningPixels?: boolean;
}

/**
 * The largest medium whose decoded pixels the image work hands to the screening (moderation/pdq.ts
 * reads pictures of PDQ_DOWNSAMPLE_MAX a side; a test holds the two equal). A taller medium's pixels
 * (a 500 × 50,000 medium is 100 MB) are let go with the image-work slot, and the screening decodes
 * the encoded medium, bounded.
 */
export const SCREENING_PIXELS_EDGE = 512;
