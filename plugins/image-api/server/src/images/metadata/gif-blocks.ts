/**
 * A GIF without its metadata, losslessly: its header, logical screen descriptor and global colour
 * table, then its blocks up to the trailer, are walked and copied as they are when they make the
 * picture: image descriptors with their colour tables and LZW data, graphic control extensions (delays,
 * transparency, disposal), and the loop block (NETSCAPE2.0, or its twin ANIMEXTS1.0; other data
 * hidden in its sub-blocks goes, the loop count stays). Dropped: comment extensions, every other
 * application extension (XMP's "XMP DataXMP" with its GPS, ICC profiles, editors' blocks), plain-text
 * extensions, unknown extensions, and whatever follows the trailer.
 *
 * Bounded: each block and each data sub-block moves the walk forward by at least one byte, nothing is
 * read past the input; data cut short is refused (libvips refuses it). A byte that starts no block,
 * after the first image, ends what libvips reads: what follows is dropped like a trailer.
 */
import { errors } from '../../http/api-error';
import { ByteRewrite, type Stripped } from './byte-rewrite';

const EXTENSION = 0x21;
const IMAGE = 0x2c;
const TRAILER = 0x3b;
const GRAPHIC_CONTROL = 0xf9;
const COMMENT = 0xfe;
const PLAIN_TEXT = 0x01;
const APPLICATION = 0xff;
/** Header (6) and logical screen descriptor (7). */
const SCREEN_END = 13;
const LOOP_IDENTIFIERS = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0']);
/** The loop sub-block: size 3, id 1, loop count (16 bits). */
const LOOP_SUB_BLOCK_SIZE = 3;
const LOOP_SUB_BLOCK_ID = 1;

const truncated = () => errors.invalidImage('truncated');

/** A colour table's size from a packed field: 3 × 2^(n+1) bytes when its flag (0x80) is set. */
const colourTable = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);

/** The offset past a run of data sub-blocks at `at` (each a size byte then that many bytes, a zero size ending them). */
function skipSubBlocks(bytes: Buffer, at: number): number {
  for (;;) {
    if (at >= bytes.length) throw truncated();
    const size = bytes[at];
    at += 1 + size;
    if (size === 0) return at;
  }
}

/**
 * An application extension at `at` (its sub-blocks end at `end`): the loop count it carries when it
 * is the loop block, and whether it is nothing but that (identifier, loop sub-block, terminator).
 */
function loopBlock(bytes: Buffer, at: number, end: number): { loop: Buffer | null; canonical: boolean } | null {
  const identifier = at + 2;
  if (bytes[identifier] !== 11 || !LOOP_IDENTIFIERS.has(bytes.toString('latin1', identifier + 1, identifier + 12))) return null;
  let loop: Buffer | null = null;
  for (let sub = identifier + 12; sub < end - 1; sub += 1 + bytes[sub]) {
    if (bytes[sub] === LOOP_SUB_BLOCK_SIZE && bytes[sub + 1] === LOOP_SUB_BLOCK_ID) {
      loop = bytes.subarray(sub + 2, sub + 4);
      break;
    }
  }
  // 2 (introducer, label), 12 (identifier sub-block), 4 (loop sub-block), 1 (terminator).
  return { loop, canonical: loop !== null && end - at === 19 };
}

/** The loop block as GIF encoders write it: identifier, loop count, terminator (19 bytes). */
function canonicalLoopBlock(bytes: Buffer, at: number, loop: Buffer): Buffer {
  return Buffer.concat([bytes.subarray(at, at + 14), Buffer.from([LOOP_SUB_BLOCK_SIZE, LOOP_SUB_BLOCK_ID]), loop, Buffer.from([0])]);
}

/** The GIF without its metadata; `write` false only tallies what would be removed. */
export function stripGif(bytes: Buffer, write = true): Stripped {
  if (bytes.length < SCREEN_END || !/^GIF8[79]a$/.test(bytes.toString('latin1', 0, 6))) throw errors.invalidImage('not a GIF');
  const out = new ByteRewrite(bytes, write);
  let at = SCREEN_END + colourTable(bytes[10]);
  if (at > bytes.length) throw truncated();
  out.keep(at);
  let images = 0;
  for (;;) {
    if (at >= bytes.length) throw truncated();
    const block = bytes[at];
    if (block === TRAILER) {
      out.keep(at + 1);
      out.drop(bytes.length, 'after trailer');
      return out.result();
    }
    if (block === IMAGE) {
      // The descriptor (10), its local colour table, the LZW minimum code size (1), the data.
      if (at + 10 > bytes.length) throw truncated();
      const data = at + 10 + colourTable(bytes[at + 9]) + 1;
      if (data > bytes.length) throw truncated();
      at = skipSubBlocks(bytes, data);
      out.keep(at);
      images++;
      continue;
    }
    if (block !== EXTENSION) {
      if (images === 0) throw errors.invalidImage('unknown block');
      out.drop(bytes.length, 'unreadable tail');
      return out.result();
    }
    if (at + 2 > bytes.length) throw truncated();
    const label = bytes[at + 1];
    const end = skipSubBlocks(bytes, at + 2);
    if (label === GRAPHIC_CONTROL) {
      out.keep(end);
    } else if (label === APPLICATION) {
      const loop = loopBlock(bytes, at, end);
      if (loop?.canonical) {
        out.keep(end);
      } else {
        const start = at;
        out.drop(end, loop ? 'loop block data' : 'application extension');
        if (loop?.loop) out.emit(canonicalLoopBlock(bytes, start, loop.loop));
      }
    } else {
      out.drop(end, label === COMMENT ? 'comment extension' : label === PLAIN_TEXT ? 'plain text extension' : 'other extension');
    }
    at = end;
  }
}
