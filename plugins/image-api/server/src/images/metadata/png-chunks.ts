/**
 * A PNG (or APNG) without its metadata, losslessly: its chunks are walked from the signature to IEND
 * and copied as they are, CRCs included, when they are critical (IHDR, PLTE, IDAT, IEND) or describe
 * how the pixels look: colour (iCCP, sRGB, gAMA, cHRM, cICP, mDCV, cLLI, sBIT), transparency (tRNS),
 * background (bKGD), pixel size (pHYs), and an APNG's animation (acTL, fcTL, fdAT). Dropped: text
 * (tEXt, zTXt, iTXt: comments, authors, ImageMagick's "Raw profile type exif/xmp/iptc"), eXIf, tIME,
 * every other ancillary chunk, and whatever follows IEND.
 *
 * Bounded: every chunk moves the walk forward by at least its 12 bytes of framing, and no chunk is
 * read past the input. A chunk cut short before the image data is refused (libpng refuses it); after
 * the image data libpng reads no further, so a broken tail there is dropped like a trailer.
 */
import { errors } from '../../http/api-error';
import { ByteRewrite, type Stripped } from './byte-rewrite';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Length, type and CRC around a chunk's data. */
const FRAMING = 12;
const MAX_CHUNK_LENGTH = 0x7fffffff;

/** A chunk type as a number: compared without making a string per chunk. */
const chunkType = (name: string) => Buffer.from(name, 'latin1').readUInt32BE(0);
const IDAT = chunkType('IDAT');
const IEND = chunkType('IEND');
const KEPT_ANCILLARY = new Set(['iCCP', 'sRGB', 'gAMA', 'cHRM', 'cICP', 'mDCV', 'cLLI', 'sBIT', 'tRNS', 'bKGD', 'pHYs', 'acTL', 'fcTL', 'fdAT'].map(chunkType));
/** Named in what is tallied; any other dropped chunk is "other ancillary chunk". */
const NAMED_DROPS = new Map(['tEXt', 'zTXt', 'iTXt', 'eXIf', 'tIME'].map((name) => [chunkType(name), name]));

/** A chunk type is four ASCII letters; the first one's case says critical (upper) or ancillary (lower). */
const isLetter = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
const isChunkType = (bytes: Buffer, at: number) => isLetter(bytes[at]) && isLetter(bytes[at + 1]) && isLetter(bytes[at + 2]) && isLetter(bytes[at + 3]);

/** The PNG without its metadata; `write` false only tallies what would be removed. */
export function stripPng(bytes: Buffer, write = true): Stripped {
  if (bytes.length < SIGNATURE.length || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw errors.invalidImage('not a PNG');
  const out = new ByteRewrite(bytes, write);
  out.keep(SIGNATURE.length);
  let imageData = false;
  let ended = false;
  for (let at = SIGNATURE.length; at < bytes.length; ) {
    const length = at + FRAMING <= bytes.length ? bytes.readUInt32BE(at) : -1;
    const end = at + FRAMING + length;
    const readable = length >= 0 && length <= MAX_CHUNK_LENGTH && end <= bytes.length && isChunkType(bytes, at + 4);
    if (!readable) {
      if (!imageData) throw errors.invalidImage('truncated');
      break;
    }
    const type = bytes.readUInt32BE(at + 4);
    const critical = (bytes[at + 4] & 0x20) === 0;
    if (critical || KEPT_ANCILLARY.has(type)) out.keep(end);
    else out.drop(end, NAMED_DROPS.get(type) ?? 'other ancillary chunk');
    if (type === IDAT) imageData = true;
    at = end;
    ended = type === IEND;
    if (ended) break;
  }
  out.drop(bytes.length, ended ? 'after IEND' : 'unreadable tail');
  return out.result();
}
