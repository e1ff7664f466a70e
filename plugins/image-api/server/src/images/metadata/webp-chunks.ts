/**
 * A WebP without its metadata, losslessly: its RIFF chunks are walked and copied as they are when
 * they make the picture (VP8X, ICCP, ANIM, ANMF frames with their ALPH/VP8/VP8L, ALPH, VP8, VP8L): a
 * lossless WebP stays lossless, an animation keeps its frames. Dropped: EXIF, XMP, unknown chunks (in
 * frames too), and whatever follows the RIFF's declared end. The RIFF size, the frames' sizes and
 * VP8X's flags are rewritten to match: EXIF and XMP bits cleared, and the alpha bit set when the image
 * has alpha (an ALPH chunk, a VP8L whose header says so, a frame with either). Files exist whose
 * alpha bit is 0 while they have alpha (exiftool writes them): libvips then decodes them without it,
 * and every transparent pixel turns black (`withTrueAlphaFlag` repairs that before any decoding).
 *
 * Bounded: every chunk moves the walk forward by at least its 8 bytes of framing, frames are walked
 * one level deep, nothing is read past the input; a chunk past the RIFF's end is refused (libwebp
 * refuses it).
 */
import { errors } from '../../http/api-error';
import { ByteRewrite, type Stripped } from './byte-rewrite';

const HEADER = 12;
const CHUNK_HEADER = 8;
/** ANMF: X, Y, width, height, duration (3 bytes each), flags (1), then the frame's chunks. */
const FRAME_HEADER = 16;
const VP8X_SIZE = 10;
const FLAG_ALPHA = 0x10;
const FLAG_EXIF = 0x08;
const FLAG_XMP = 0x04;
const VP8L_SIGNATURE = 0x2f;

/** A chunk's fourcc as a number: compared without making a string per chunk. */
const fourcc = (name: string) => Buffer.from(name, 'latin1').readUInt32BE(0);
const [VP8X, ICCP, ANIM, ANMF, ALPH, VP8, VP8L, EXIF, XMP] = ['VP8X', 'ICCP', 'ANIM', 'ANMF', 'ALPH', 'VP8 ', 'VP8L', 'EXIF', 'XMP '].map(fourcc);

/** Chunks that make the picture; what else a frame holds is dropped too. */
const KEPT = new Set([VP8X, ICCP, ANIM, ANMF, ALPH, VP8, VP8L]);
const FRAME_KEPT = new Set([ALPH, VP8, VP8L]);
const label = (type: number) => (type === EXIF ? 'EXIF' : type === XMP ? 'XMP' : 'unknown chunk');
const frameLabel = (type: number) => (type === EXIF ? 'EXIF in a frame' : type === XMP ? 'XMP in a frame' : 'unknown chunk in a frame');

const truncated = () => errors.invalidImage('truncated');

interface Chunk {
  /** Its fourcc (`fourcc`). */
  type: number;
  /** Where its data starts, where it ends, where its padding (to an even size) ends. */
  data: number;
  end: number;
  next: number;
}

/** The chunk at `at` within `[.., limit)`, or null when it runs past the limit. The last may lack its pad byte. */
function chunkAt(bytes: Buffer, at: number, limit: number): Chunk | null {
  if (at + CHUNK_HEADER > limit) return null;
  const size = bytes.readUInt32LE(at + 4);
  const data = at + CHUNK_HEADER;
  const end = data + size;
  if (end > limit) return null;
  return { type: bytes.readUInt32BE(at), data, end, next: Math.min(end + (size & 1), limit) };
}

/** A VP8L bitstream's header says its alpha is used: bit 28 after the signature byte. */
const vp8lHasAlpha = (bytes: Buffer, chunk: Chunk) =>
  chunk.end - chunk.data >= 5 && bytes[chunk.data] === VP8L_SIGNATURE && (bytes.readUInt32LE(chunk.data + 1) >>> 28) & 1;

/** The chunk holds pixels with alpha (ALPH, or a VP8L saying so). */
const isAlpha = (bytes: Buffer, chunk: Chunk) => chunk.type === ALPH || (chunk.type === VP8L && Boolean(vp8lHasAlpha(bytes, chunk)));

/** The RIFF's declared end, when it is a WebP that fits in the input. */
function riffEnd(bytes: Buffer): number | null {
  if (bytes.length < HEADER + CHUNK_HEADER || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return null;
  const end = 8 + bytes.readUInt32LE(4);
  return end <= bytes.length && end >= HEADER + CHUNK_HEADER ? end : null;
}

/** A frame's chunks: ALPH or an alpha VP8L among them. */
function frameHasAlpha(bytes: Buffer, frame: Chunk): boolean {
  for (let at = frame.data + FRAME_HEADER, sub = chunkAt(bytes, at, frame.end); sub; at = sub.next, sub = chunkAt(bytes, at, frame.end)) {
    if (isAlpha(bytes, sub)) return true;
  }
  return false;
}

/**
 * The WebP with its VP8X alpha bit set when its image has alpha and the bit says it has none; any
 * other input (another type, a simple WebP, one that cannot be walked) comes back as it is.
 */
export function withTrueAlphaFlag(bytes: Buffer): Buffer {
  const limit = riffEnd(bytes);
  const first = limit && chunkAt(bytes, HEADER, limit);
  if (!limit || !first || first.type !== VP8X || first.end - first.data < VP8X_SIZE || bytes[first.data] & FLAG_ALPHA) return bytes;
  for (let at = first.next, chunk = chunkAt(bytes, at, limit); chunk; at = chunk.next, chunk = chunkAt(bytes, at, limit)) {
    if (isAlpha(bytes, chunk) || (chunk.type === ANMF && frameHasAlpha(bytes, chunk))) {
      const repaired = Buffer.from(bytes);
      repaired[first.data] |= FLAG_ALPHA;
      return repaired;
    }
  }
  return bytes;
}

/** Copies a frame, dropping what in it is not picture, and rewrites its size if anything was. */
function keepFrame(out: ByteRewrite, bytes: Buffer, frame: Chunk): boolean {
  const sizeAt = out.outputPosition + 4;
  if (frame.end - frame.data < FRAME_HEADER) throw errors.invalidImage('frame header');
  out.keep(frame.data + FRAME_HEADER);
  const dataOut = out.outputPosition;
  let alpha = false;
  let at = frame.data + FRAME_HEADER;
  for (let sub = chunkAt(bytes, at, frame.end); sub; at = sub.next, sub = chunkAt(bytes, at, frame.end)) {
    if (FRAME_KEPT.has(sub.type)) {
      out.keep(sub.next);
      alpha ||= isAlpha(bytes, sub);
    } else {
      out.drop(sub.next, frameLabel(sub.type));
    }
  }
  if (at !== frame.end) throw truncated();
  const size = out.outputPosition - dataOut + FRAME_HEADER;
  out.patchUInt32LE(sizeAt, size);
  // The frame's pad byte, if it had one, follows its data; a frame rewritten to an even size needs none.
  if (frame.next > frame.end) {
    if (size & 1) out.keep(frame.next);
    else out.drop(frame.next, 'frame padding');
  } else if (size & 1) {
    out.emit(Buffer.alloc(1));
  }
  return alpha;
}

/** The WebP without its metadata; `write` false only tallies what would be removed. */
export function stripWebp(bytes: Buffer, write = true): Stripped {
  if (bytes.length < HEADER || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') throw errors.invalidImage('not a WebP');
  const limit = riffEnd(bytes);
  if (limit === null) throw truncated();
  const out = new ByteRewrite(bytes, write);
  out.keep(HEADER);
  const first = chunkAt(bytes, HEADER, limit);
  if (!first) throw truncated();
  const extended = first.type === VP8X;
  if (!extended && first.type !== VP8 && first.type !== VP8L) throw errors.invalidImage('first chunk');
  if (extended && first.end - first.data < VP8X_SIZE) throw errors.invalidImage('VP8X');
  const flagsAt = out.outputPosition + CHUNK_HEADER;
  out.keep(first.next);
  let alpha = false;
  let at = first.next;
  for (let chunk = chunkAt(bytes, at, limit); chunk; at = chunk.next, chunk = chunkAt(bytes, at, limit)) {
    // A simple WebP is its one VP8 or VP8L chunk: whatever follows it is no part of the picture.
    if (!extended || !KEPT.has(chunk.type)) {
      out.drop(chunk.next, label(chunk.type));
    } else if (chunk.type === ANMF) {
      alpha = keepFrame(out, bytes, chunk) || alpha;
    } else {
      out.keep(chunk.next);
      alpha ||= isAlpha(bytes, chunk);
    }
  }
  if (at !== limit) throw truncated();
  out.drop(bytes.length, 'after RIFF');
  if (extended) {
    const flags = bytes[first.data];
    out.patchByte(flagsAt, (flags & ~(FLAG_EXIF | FLAG_XMP)) | (alpha ? FLAG_ALPHA : 0));
  }
  out.patchUInt32LE(4, out.outputPosition - 8);
  return out.result();
}
