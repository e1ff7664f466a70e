/**
 * Metadata privacy, format by format: what a file holds besides its picture (EXIF with GPS, XMP,
 * IPTC, comments, text chunks, a JPEG's trailing video or second picture) is found by walking its
 * container, not by asking a decoder (libvips reports no GIF comment, no PNG text chunk, nothing after
 * a JPEG's EOI). JPEG, PNG, GIF and WebP are rewritten without it, losslessly: what is kept is copied
 * byte for byte (jpeg-segments.ts, png-chunks.ts, gif-blocks.ts, webp-chunks.ts). A HEIF's metadata
 * items are found (heif-items.ts) but its boxes are not rewritten: the upload re-encodes an AVIF with
 * metadata and decodes a HEIC to pixels, and libvips writes no EXIF or XMP into either.
 */
import type { ImageType } from '../../config';
import type { Stripped } from './byte-rewrite';
import { stripJpeg } from './jpeg-segments';
import { stripPng } from './png-chunks';
import { stripGif } from './gif-blocks';
import { stripWebp } from './webp-chunks';
import { heifMetadataItems } from './heif-items';

export type { Removed, Stripped } from './byte-rewrite';

type Walker = (bytes: Buffer, write?: boolean) => Stripped;

const WALKERS: Partial<Record<ImageType, Walker>> = { jpeg: stripJpeg, png: stripPng, gif: stripGif, webp: stripWebp };

/**
 * The file rewritten without its metadata (the same Buffer when it has none), or null for a type
 * that is not rewritten here (HEIC, AVIF, BMP). Refuses (400/311) a file whose structure cannot be
 * followed.
 */
export function stripMetadata(bytes: Buffer, type: ImageType): Stripped | null {
  const walker = WALKERS[type];
  return walker ? walker(bytes) : null;
}

/** What metadata the file holds (what `stripMetadata` would remove; a HEIF's metadata items), by kind; empty when none. */
export function metadataIn(bytes: Buffer, type: ImageType): string[] {
  if (type === 'heic' || type === 'avif') return heifMetadataItems(bytes);
  const walker = WALKERS[type];
  return walker ? walker(bytes, false).removed.map((removed) => removed.what) : [];
}
