/**
 * A HEIC's EXIF, kept (`keepExif`) in the JPEG it is stored as. libvips hands a HEIF's EXIF over as
 * the bare TIFF structure; a JPEG carries it in an APP1 segment behind "Exif\0\0". The orientation
 * tag is set to 1 on the way: libheif has already turned the pixels upright (heic-worker.ts), and a
 * viewer reading the phone's original tag would turn them again.
 */

const EXIF_HEADER = Buffer.from('Exif\0\0', 'latin1');
const ORIENTATION_TAG = 0x0112;
/** An APP1 segment's length field counts itself and its payload, in 16 bits. */
const MAX_SEGMENT_PAYLOAD = 0xffff - 2;

/** Sets IFD0's orientation to 1 (upright) in a TIFF structure, in place; a malformed one is left alone. */
function markUpright(tiff: Buffer): void {
  if (tiff.length < 8) return;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return;
  const entries = u16(ifd);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return;
    if (u16(entry) !== ORIENTATION_TAG) continue;
    // A SHORT held in the entry's value field (its first two bytes).
    if (little) tiff.writeUInt16LE(1, entry + 8);
    else tiff.writeUInt16BE(1, entry + 8);
    return;
  }
}

/**
 * `jpeg` with `exif` (bare TIFF, or with the "Exif\0\0" header) in an APP1 segment after SOI and any
 * JFIF APP0. An EXIF block too large for one segment is not kept.
 */
export function withExifBlock(jpeg: Buffer, exif: Buffer): Buffer {
  const tiff = Buffer.from(exif.subarray(0, 6).equals(EXIF_HEADER) ? exif.subarray(6) : exif);
  markUpright(tiff);
  const payload = Buffer.concat([EXIF_HEADER, tiff]);
  if (payload.length > MAX_SEGMENT_PAYLOAD) return jpeg;
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  // SOI is 2 bytes; an APP0 (FF E0) right after it is skipped whole.
  let at = 2;
  if (jpeg[2] === 0xff && jpeg[3] === 0xe0) at = 4 + jpeg.readUInt16BE(4);
  return Buffer.concat([jpeg.subarray(0, at), header, payload, jpeg.subarray(at)]);
}
