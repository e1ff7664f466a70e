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
}

export interface VariantOptions {
  thumbSize: number;
  mediumWidth: number;
  jpegQuality: number;
  maxPixels: number;
  /** Keep EXIF/XMP/IPTC in stored originals (default: removed). */
  keepExif: boolean;
}
