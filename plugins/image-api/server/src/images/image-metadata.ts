/**
 * Metadata privacy: EXIF (GPS, camera serials, dates), XMP and IPTC leave every stored file unless
 * the operator keeps them (`keepExif`). JPEG and PNG are cleaned losslessly (exif-be-gone drops the
 * metadata segments and chunks, pixels untouched); whatever it cannot clean (WebP, GIF, IPTC) is
 * re-encoded by sharp, which writes no metadata. The result is checked, not assumed.
 */
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import ExifTransformer from 'exif-be-gone';
import exifr from 'exifr';
import sharp, { type Metadata } from 'sharp';

/** What the header says about metadata worth removing. */
export const hasPersonalMetadata = (meta: Metadata) => Boolean(meta.exif || meta.xmp || meta.iptc);

/** Drops EXIF/XMP segments (JPEG) or chunks (PNG) without touching the image data. */
export async function stripLossless(bytes: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(Readable.from([bytes]), new ExifTransformer(), async function* (source) {
    for await (const chunk of source) chunks.push(chunk as Buffer);
  });
  return Buffer.concat(chunks);
}

/** True when a metadata read of `bytes` finds no EXIF, XMP or IPTC. */
export async function isClean(bytes: Buffer): Promise<boolean> {
  try {
    return !hasPersonalMetadata(await sharp(bytes).metadata());
  } catch {
    return false;
  }
}

const JSON_SAFE = (_key: string, value: unknown) =>
  value instanceof Uint8Array || ArrayBuffer.isView(value) ? undefined : value;

/** The EXIF (with GPS) of an image as plain JSON, for `original_exifdata`; null when it has none. */
export async function readExif(bytes: Buffer): Promise<Record<string, unknown> | null> {
  try {
    const parsed = await exifr.parse(bytes, { tiff: true, exif: true, gps: true, interop: false, xmp: false, icc: false, iptc: false });
    if (!parsed || Object.keys(parsed).length === 0) return null;
    return JSON.parse(JSON.stringify(parsed, JSON_SAFE));
  } catch {
    return null;
  }
}
