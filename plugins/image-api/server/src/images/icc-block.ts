/**
 * A HEIC's ICC profile in the JPEG it is stored as (image-variants.ts, pixelVariants): sharp tags
 * an output only with a profile it converts to, and a HEIC's pixels come from libheif as numbers
 * already in the profile's colour space (Display P3, for phones). A JPEG carries a profile in APP2
 * segments behind "ICC_PROFILE\0", each with its sequence number and the count (ICC.1, annex B.4).
 */

const ICC_HEADER = Buffer.from('ICC_PROFILE\0', 'latin1');
/** An APP2 segment's length field counts itself, the header, the two counters and the chunk, in 16 bits. */
const MAX_CHUNK = 0xffff - 2 - ICC_HEADER.length - 2;
/** The counters are bytes. */
const MAX_CHUNKS = 255;

/** True when `icc` fits in a JPEG's APP2 segments. */
export const fitsInJpeg = (icc: Buffer) => icc.length > 0 && Math.ceil(icc.length / MAX_CHUNK) <= MAX_CHUNKS;

/** `jpeg` with `icc` in APP2 segments after SOI and any JFIF APP0; `jpeg` as it is when the profile does not fit. */
export function withIccBlock(jpeg: Buffer, icc: Buffer): Buffer {
  if (!fitsInJpeg(icc)) return jpeg;
  const count = Math.ceil(icc.length / MAX_CHUNK);
  const segments: Buffer[] = [];
  for (let index = 0; index < count; index++) {
    const chunk = icc.subarray(index * MAX_CHUNK, (index + 1) * MAX_CHUNK);
    const header = Buffer.from([0xff, 0xe2, 0, 0]);
    header.writeUInt16BE(2 + ICC_HEADER.length + 2 + chunk.length, 2);
    segments.push(header, ICC_HEADER, Buffer.from([index + 1, count]), chunk);
  }
  // SOI is 2 bytes; an APP0 (FF E0) right after it is skipped whole.
  let at = 2;
  if (jpeg[2] === 0xff && jpeg[3] === 0xe0) at = 4 + jpeg.readUInt16BE(4);
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)]);
}
