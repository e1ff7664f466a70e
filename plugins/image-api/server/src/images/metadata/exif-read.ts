/**
 * The EXIF of a received image as plain JSON, for `original_exifdata` when the operator keeps
 * metadata (`keepExif`): camera, dates, GPS position.
 */
import exifr from 'exifr';

const JSON_SAFE = (_key: string, value: unknown) =>
  value instanceof Uint8Array || ArrayBuffer.isView(value) ? undefined : value;

/** The EXIF (with GPS) of an image as plain JSON; null when it has none or it cannot be read. */
export async function readExif(bytes: Buffer): Promise<Record<string, unknown> | null> {
  try {
    const parsed = await exifr.parse(bytes, { tiff: true, exif: true, gps: true, interop: false, xmp: false, icc: false, iptc: false });
    if (!parsed || Object.keys(parsed).length === 0) return null;
    return JSON.parse(JSON.stringify(parsed, JSON_SAFE));
  } catch {
    return null;
  }
}
