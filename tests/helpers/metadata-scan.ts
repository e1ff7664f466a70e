/**
 * What an image file holds, read from its bytes here: the tests judge the service's files with their
 * own readers, so that a library the service uses (sharp, exif-be-gone) cannot hide what it missed.
 * JPEG segments (the scan walked to the true end-of-image), PNG chunks, GIF blocks, WebP RIFF
 * chunks, HEIF/AVIF boxes and items; frames, delays and loop; bits and channels as the container
 * declares them; the ICC profile. Every walk is bounded by the bytes it was given and always moves
 * on: a lying length ends it with a problem noted, never an exception or a loop.
 */
import zlib from 'zlib';

export type Container = 'jpeg' | 'png' | 'gif' | 'webp' | 'heif' | 'bmp' | 'unknown';

export interface Animation {
  frames: number;
  /** Each frame's delay in milliseconds, in order (empty for a still). */
  delaysMs: number[];
  /** Times to play (0: for ever), null when the file says nothing (a GIF without NETSCAPE2.0 plays once). */
  loop: number | null;
}

export interface ImageScan {
  container: Container;
  /** What the file holds, in order: "APP1 Exif", "tEXt Comment", "comment", "EXIF", "item 3 Exif"... */
  parts: string[];
  width: number;
  height: number;
  /** Bits a channel, as the container declares it (8 for a palette: its entries are 8 bits a primary). */
  bits: number;
  /** Channels the file holds: 1 gray, 2 gray+alpha, 3 colour, 4 colour+alpha (or CMYK). */
  channels: number;
  icc: Buffer | null;
  animation: Animation;
  /** Bytes after the container's end: a JPEG's true EOI, PNG's IEND, GIF's trailer, the RIFF's size. */
  trailing: number;
  /** Where the structure is broken; a walk stops at the first that leaves it lost. */
  problems: string[];
  /** Metadata that may locate or name someone, or anything after the end (see personalMetadata). */
  personal: string[];
  /** WebP: every coded picture is VP8L. Null for the other containers. */
  lossless: boolean | null;
  /** WebP: the VP8X flags, null without VP8X. */
  webpFlags: number | null;
  /**
   * The bytes that code the picture, without metadata: JPEG's tables, frame headers and scans; PNG's
   * IHDR, PLTE, tRNS and image/animation chunks; GIF's screen, palettes, frames; WebP's coded chunks.
   * Equal before and after a metadata strip when nothing was re-encoded.
   */
  imageData: Buffer;
}

/** VP8X flags. */
export const WEBP_FLAG = { icc: 0x20, alpha: 0x10, exif: 0x08, xmp: 0x04, animation: 0x02 } as const;

const latin1 = (bytes: Buffer, start: number, end: number) => bytes.toString('latin1', start, Math.min(end, bytes.length));

function blank(container: Container): ImageScan {
  return {
    container,
    parts: [],
    width: 0,
    height: 0,
    bits: 0,
    channels: 0,
    icc: null,
    animation: { frames: 1, delaysMs: [], loop: null },
    trailing: 0,
    problems: [],
    personal: [],
    lossless: null,
    webpFlags: null,
    imageData: Buffer.alloc(0),
  };
}

/** Reads what `bytes` hold; never throws. */
export function scanImage(bytes: Buffer): ImageScan {
  const container = containerOf(bytes);
  const scan = blank(container);
  try {
    if (container === 'jpeg') scanJpeg(bytes, scan);
    else if (container === 'png') scanPng(bytes, scan);
    else if (container === 'gif') scanGif(bytes, scan);
    else if (container === 'webp') scanWebp(bytes, scan);
    else if (container === 'heif') scanHeif(bytes, scan);
    else if (container === 'bmp') scanBmp(bytes, scan);
  } catch (error) {
    // A reader here that trips on a hostile file is this helper's bug; say so rather than hide it.
    scan.problems.push(`scanner error: ${(error as Error).message}`);
  }
  scan.personal = personalMetadata(scan);
  return scan;
}

/** The metadata of `bytes` that an image host must not publish (empty: none). */
export const forbiddenMetadata = (bytes: Buffer): string[] => scanImage(bytes).personal;

export function containerOf(bytes: Buffer): Container {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(latin1(bytes, 0, 6))) return 'gif';
  if (bytes.length >= 12 && latin1(bytes, 0, 4) === 'RIFF' && latin1(bytes, 8, 12) === 'WEBP') return 'webp';
  if (bytes.length >= 12 && latin1(bytes, 4, 8) === 'ftyp') return 'heif';
  if (bytes.length >= 26 && latin1(bytes, 0, 2) === 'BM') return 'bmp';
  return 'unknown';
}

/**
 * The parts of a scan that may locate or name someone: EXIF, XMP, IPTC and other application
 * segments (JPEG comments too), PNG text and eXIf chunks, GIF comments and application extensions
 * other than the loop block, WebP EXIF and XMP chunks, HEIF Exif and XMP (mime) items, and any bytes
 * after the container's end.
 */
function personalMetadata(scan: ImageScan): string[] {
  const found: string[] = [];
  const allowed: Record<Container, (part: string) => boolean> = {
    // JFIF, an ICC profile, Adobe's colour transform: needed to show the picture, naming no one.
    jpeg: (part) => !/^(APP\d+|COM)/.test(part) || /^APP0 (JFIF|JFXX)$/.test(part) || part === 'APP2 ICC_PROFILE' || part === 'APP14 Adobe',
    png: (part) => !/^(tEXt|zTXt|iTXt|eXIf|exIf)\b/.test(part),
    gif: (part) => !/^(comment|application)\b/.test(part) || /^application (NETSCAPE2\.0|ANIMEXTS1\.0)$/.test(part),
    webp: (part) => part !== 'EXIF' && part !== 'XMP ',
    heif: (part) => !/^item \d+ (Exif|mime)\b/.test(part),
    bmp: () => true,
    unknown: () => true,
  };
  for (const part of scan.parts) if (!allowed[scan.container](part)) found.push(part);
  if (scan.trailing > 0) found.push(`${scan.trailing} bytes after the end`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// JPEG

const isSof = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** The name of an APPn segment: its marker and the identifier its payload starts with. */
function appName(marker: number, payload: Buffer): string {
  const n = marker - 0xe0;
  const head = latin1(payload, 0, 40);
  if (head.startsWith('Exif\0')) return `APP${n} Exif`;
  if (head.startsWith('http://ns.adobe.com/xap/1.0/\0')) return `APP${n} XMP`;
  if (head.startsWith('http://ns.adobe.com/xmp/extension/\0')) return `APP${n} XMP extension`;
  if (head.startsWith('ICC_PROFILE\0')) return `APP${n} ICC_PROFILE`;
  if (head.startsWith('MPF\0')) return `APP${n} MPF`;
  if (head.startsWith('Photoshop 3.0\0')) return `APP${n} Photoshop`;
  const id = /^[\x20-\x7e]*/.exec(head)?.[0] ?? '';
  return `APP${n}${id ? ` ${id}` : ''}`;
}

/**
 * From the SOS header's end, the entropy-coded data runs to the next marker that is not a stuffed
 * 0xFF00 or a restart marker.
 */
function scanEnd(bytes: Buffer, from: number): number {
  let at = from;
  for (;;) {
    at = bytes.indexOf(0xff, at);
    if (at < 0 || at + 1 >= bytes.length) return bytes.length;
    const next = bytes[at + 1];
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) at += next === 0xff ? 1 : 2;
    else return at;
  }
}

function scanJpeg(bytes: Buffer, scan: ImageScan) {
  const data: Buffer[] = [bytes.subarray(0, 2)];
  const icc: Array<{ sequence: number; data: Buffer }> = [];
  let at = 2;
  let ended = false;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) {
      scan.problems.push(`no marker at ${at}`);
      break;
    }
    // Fill bytes before a marker.
    while (at + 1 < bytes.length && bytes[at + 1] === 0xff) at++;
    if (at + 1 >= bytes.length) {
      scan.problems.push('cut inside a marker');
      break;
    }
    const marker = bytes[at + 1];
    if (marker === 0xd9) {
      data.push(bytes.subarray(at, at + 2));
      at += 2;
      ended = true;
      break;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    if (at + 4 > bytes.length) {
      scan.problems.push(`segment 0x${marker.toString(16)} cut at ${at}`);
      break;
    }
    const length = bytes.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > bytes.length) {
      scan.problems.push(`segment 0x${marker.toString(16)} at ${at} says ${length} bytes, past the file`);
      break;
    }
    const payload = bytes.subarray(at + 4, end);
    if (marker >= 0xe0 && marker <= 0xef) {
      const name = appName(marker, payload);
      scan.parts.push(name);
      if (name === 'APP2 ICC_PROFILE' && payload.length > 14) icc.push({ sequence: payload[12], data: payload.subarray(14) });
      at = end;
      continue;
    }
    if (marker === 0xfe) {
      scan.parts.push('COM');
      at = end;
      continue;
    }
    if (isSof(marker) && payload.length >= 6) {
      scan.parts.push(`SOF${marker - 0xc0}`);
      scan.bits = payload[0];
      scan.height = payload.readUInt16BE(1);
      scan.width = payload.readUInt16BE(3);
      scan.channels = payload[5];
    } else if (marker === 0xda) scan.parts.push('SOS');
    if (marker === 0xda) {
      const dataEnd = scanEnd(bytes, end);
      data.push(bytes.subarray(at, dataEnd));
      at = dataEnd;
      continue;
    }
    data.push(bytes.subarray(at, end));
    at = end;
  }
  if (!ended) scan.problems.push('no end-of-image marker');
  scan.trailing = ended ? bytes.length - at : 0;
  if (icc.length) scan.icc = Buffer.concat(icc.sort((a, b) => a.sequence - b.sequence).map((part) => part.data));
  scan.imageData = Buffer.concat(data);
}

// ---------------------------------------------------------------------------------------------
// PNG

const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 3, 4: 2, 6: 4 };
/** Chunks that code the picture or the animation (IDAT's data is taken apart). */
const PNG_IMAGE_CHUNKS = new Set(['IHDR', 'PLTE', 'tRNS', 'acTL', 'fcTL', 'fdAT', 'IEND']);
/** The most an iCCP profile may inflate to here: an ICC profile is at most a few megabytes. */
const MAX_ICC = 16 << 20;

function scanPng(bytes: Buffer, scan: ImageScan) {
  const data: Buffer[] = [];
  let colourType = -1;
  let depth = 0;
  let transparency = false;
  let ended = false;
  let at = 8;
  while (at < bytes.length) {
    if (at + 12 > bytes.length) {
      scan.problems.push(`chunk cut at ${at}`);
      break;
    }
    const length = bytes.readUInt32BE(at);
    const type = latin1(bytes, at + 4, at + 8);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) {
      scan.problems.push(`chunk ${JSON.stringify(type)} at ${at} says ${length} bytes, past the file`);
      break;
    }
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (zlib.crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)) scan.problems.push(`chunk ${type} at ${at}: bad CRC`);
    // IDAT's data alone: one zlib stream, however an encoder cut it into chunks.
    if (type === 'IDAT') data.push(body);
    else if (PNG_IMAGE_CHUNKS.has(type)) data.push(bytes.subarray(at + 4, at + 8 + length));
    if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const nul = body.indexOf(0);
      scan.parts.push(`${type} ${latin1(body, 0, nul < 0 ? Math.min(body.length, 79) : nul)}`);
    } else scan.parts.push(type);
    if (type === 'IHDR' && length >= 13) {
      scan.width = body.readUInt32BE(0);
      scan.height = body.readUInt32BE(4);
      depth = body[8];
      colourType = body[9];
    } else if (type === 'tRNS') transparency = true;
    else if (type === 'iCCP') {
      const nul = body.indexOf(0);
      try {
        scan.icc = zlib.inflateSync(body.subarray(nul + 2), { maxOutputLength: MAX_ICC });
      } catch {
        scan.problems.push('iCCP does not inflate');
      }
    } else if (type === 'acTL' && length >= 8) {
      scan.animation.frames = body.readUInt32BE(0);
      scan.animation.loop = body.readUInt32BE(4);
    } else if (type === 'fcTL' && length >= 26) {
      const [numerator, denominator] = [body.readUInt16BE(20), body.readUInt16BE(22)];
      scan.animation.delaysMs.push((numerator * 1000) / (denominator || 100));
    }
    at = end;
    if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  if (!ended) scan.problems.push('no IEND');
  scan.trailing = ended ? bytes.length - at : 0;
  scan.bits = colourType === 3 ? 8 : depth;
  scan.channels = (PNG_CHANNELS[colourType] ?? 0) + (transparency && (colourType === 0 || colourType === 2 || colourType === 3) ? 1 : 0);
  // A PNG without acTL is a still: its delays, if any fcTL strayed in, mean nothing.
  if (!scan.parts.includes('acTL')) scan.animation.delaysMs = [];
  scan.imageData = Buffer.concat(data);
}

// ---------------------------------------------------------------------------------------------
// GIF

/** Walks sub-blocks from `at` to their terminator; returns the offset after it, or -1 when cut. */
function skipSubBlocks(bytes: Buffer, at: number): number {
  let p = at;
  while (p < bytes.length) {
    const size = bytes[p];
    if (size === 0) return p + 1;
    p += size + 1;
  }
  return -1;
}

function scanGif(bytes: Buffer, scan: ImageScan) {
  if (bytes.length < 13) {
    scan.problems.push('header cut');
    return;
  }
  scan.width = bytes.readUInt16LE(6);
  scan.height = bytes.readUInt16LE(8);
  scan.bits = 8;
  scan.channels = 3;
  const flags = bytes[10];
  let at = 13 + (flags & 0x80 ? 3 * (2 << (flags & 7)) : 0);
  const data: Buffer[] = [bytes.subarray(0, Math.min(at, bytes.length))];
  let frames = 0;
  let delay: number | null = null;
  let ended = false;
  while (at < bytes.length) {
    const introducer = bytes[at];
    if (introducer === 0x3b) {
      at += 1;
      ended = true;
      break;
    }
    if (introducer === 0x21) {
      if (at + 2 > bytes.length) break;
      const label = bytes[at + 1];
      const end = skipSubBlocks(bytes, at + 2);
      if (end < 0) {
        scan.problems.push(`extension 0x${label.toString(16)} at ${at} cut`);
        break;
      }
      if (label === 0xf9) {
        scan.parts.push('graphic control');
        if (bytes[at + 2] >= 4) {
          delay = bytes.readUInt16LE(at + 4) * 10;
          if (bytes[at + 3] & 1) scan.channels = 4;
        }
        data.push(bytes.subarray(at, end));
      } else if (label === 0xff) {
        const id = bytes[at + 2] === 11 ? latin1(bytes, at + 3, at + 14) : '?';
        scan.parts.push(`application ${id}`);
        // NETSCAPE2.0's sub-block: 1, then the loop count.
        if ((id === 'NETSCAPE2.0' || id === 'ANIMEXTS1.0') && bytes[at + 14] >= 3 && bytes[at + 15] === 1) scan.animation.loop = bytes.readUInt16LE(at + 16);
      } else if (label === 0xfe) scan.parts.push('comment');
      else if (label === 0x01) scan.parts.push('plain text');
      else scan.parts.push(`extension 0x${label.toString(16)}`);
      at = end;
      continue;
    }
    if (introducer === 0x2c) {
      if (at + 11 > bytes.length) {
        scan.problems.push(`image descriptor cut at ${at}`);
        break;
      }
      const local = bytes[at + 9];
      const start = at;
      at += 10 + (local & 0x80 ? 3 * (2 << (local & 7)) : 0) + 1;
      const end = skipSubBlocks(bytes, at);
      if (end < 0) {
        scan.problems.push(`image data cut after ${start}`);
        break;
      }
      scan.parts.push('image');
      data.push(bytes.subarray(start, end));
      frames++;
      scan.animation.delaysMs.push(delay ?? 0);
      delay = null;
      at = end;
      continue;
    }
    scan.problems.push(`unknown block 0x${introducer.toString(16)} at ${at}`);
    break;
  }
  if (!ended) scan.problems.push('no trailer');
  scan.trailing = ended ? bytes.length - at : 0;
  scan.animation.frames = frames;
  if (frames <= 1) scan.animation.delaysMs = [];
  scan.imageData = Buffer.concat(data);
}

// ---------------------------------------------------------------------------------------------
// WebP

interface RiffChunk {
  type: string;
  payload: Buffer;
}

function riffChunks(bytes: Buffer, start: number, end: number, scan: ImageScan): RiffChunk[] {
  const found: RiffChunk[] = [];
  let at = start;
  while (at + 8 <= end) {
    const type = latin1(bytes, at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (at + 8 + size > end) {
      scan.problems.push(`chunk ${JSON.stringify(type)} at ${at} says ${size} bytes, past its container`);
      break;
    }
    found.push({ type, payload: bytes.subarray(at + 8, at + 8 + size) });
    at += 8 + size + (size & 1);
  }
  if (at < end && at + 8 > end) scan.problems.push(`${end - at} stray bytes at ${at}`);
  return found;
}

/** Dimensions and alpha of one coded picture (VP8, VP8L), and whether it is lossless. */
function codedPicture(chunk: RiffChunk): { width: number; height: number; lossless: boolean; alpha: boolean } | null {
  const p = chunk.payload;
  if (chunk.type === 'VP8 ' && p.length >= 10 && p[3] === 0x9d && p[4] === 0x01 && p[5] === 0x2a) {
    return { width: p.readUInt16LE(6) & 0x3fff, height: p.readUInt16LE(8) & 0x3fff, lossless: false, alpha: false };
  }
  if (chunk.type === 'VP8L' && p.length >= 5 && p[0] === 0x2f) {
    const bits = p.readUInt32LE(1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, lossless: true, alpha: Boolean((bits >>> 28) & 1) };
  }
  return null;
}

function scanWebp(bytes: Buffer, scan: ImageScan) {
  const declared = 8 + bytes.readUInt32LE(4);
  const end = Math.min(declared, bytes.length);
  if (declared > bytes.length) scan.problems.push(`RIFF says ${declared} bytes, the file has ${bytes.length}`);
  scan.trailing = Math.max(0, bytes.length - declared);
  scan.bits = 8;
  scan.channels = 3;
  const data: Buffer[] = [];
  let coded = 0;
  let lossless = true;
  const picture = (chunk: RiffChunk) => {
    const found = codedPicture(chunk);
    if (!found) return;
    coded++;
    lossless &&= found.lossless;
    if (found.alpha) scan.channels = 4;
    if (!scan.width) [scan.width, scan.height] = [found.width, found.height];
  };
  for (const chunk of riffChunks(bytes, 12, end, scan)) {
    scan.parts.push(chunk.type);
    const p = chunk.payload;
    if (chunk.type === 'VP8X' && p.length >= 10) {
      scan.webpFlags = p[0];
      if (p[0] & WEBP_FLAG.alpha) scan.channels = 4;
      scan.width = p.readUIntLE(4, 3) + 1;
      scan.height = p.readUIntLE(7, 3) + 1;
    } else if (chunk.type === 'ICCP') scan.icc = Buffer.from(p);
    else if (chunk.type === 'ALPH') scan.channels = 4;
    else if (chunk.type === 'ANIM' && p.length >= 6) scan.animation.loop = p.readUInt16LE(4);
    else if (chunk.type === 'ANMF' && p.length >= 16) {
      scan.animation.delaysMs.push(p.readUIntLE(12, 3));
      for (const inner of riffChunks(p, 16, p.length, scan)) {
        if (inner.type === 'ALPH') scan.channels = 4;
        picture(inner);
      }
    } else picture(chunk);
    if (['VP8 ', 'VP8L', 'ALPH', 'ANIM', 'ANMF'].includes(chunk.type)) data.push(Buffer.from(chunk.type, 'latin1'), p);
  }
  const frames = scan.parts.filter((part) => part === 'ANMF').length;
  scan.animation.frames = frames || 1;
  if (!frames) scan.animation.delaysMs = [];
  if (!coded) scan.problems.push('no coded picture');
  scan.lossless = coded > 0 && lossless;
  scan.imageData = Buffer.concat(data);
}

// ---------------------------------------------------------------------------------------------
// HEIF / AVIF (ISO/IEC 23008-12 on ISO BMFF)

interface Box {
  type: string;
  /** The payload, after the header (a full box's version and flags included). */
  body: Buffer;
}

/** The boxes between `start` and `end`; a box of size 0 runs to the end, of size 1 has a 64-bit size. */
function boxes(bytes: Buffer, start: number, end: number, scan: ImageScan): Box[] {
  const found: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = bytes.readUInt32BE(at);
    const type = latin1(bytes, at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) break;
      const large = bytes.readBigUInt64BE(at + 8);
      size = large > BigInt(end - at) ? Number.MAX_SAFE_INTEGER : Number(large);
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) {
      scan.problems.push(`box ${JSON.stringify(type)} at ${at} says ${size} bytes, past its container`);
      break;
    }
    found.push({ type, body: bytes.subarray(at + header, at + size) });
    at += size;
  }
  return found;
}

/** A NUL-terminated string from `at`; returns it and the offset after the NUL. */
function cString(bytes: Buffer, at: number): [string, number] {
  const nul = bytes.indexOf(0, at);
  const end = nul < 0 ? bytes.length : nul;
  return [bytes.toString('utf8', at, end), end + 1];
}

/**
 * Runs a read of one box's fields; a box too short for them (a Buffer read past its end: RangeError)
 * is noted and skipped, the walk goes on.
 */
function guarded(scan: ImageScan, what: string, read: () => void) {
  try {
    read();
  } catch (error) {
    // By name: Node's buffer errors come from its own realm, not a test sandbox's RangeError.
    if ((error as Error).name !== 'RangeError') throw error;
    scan.problems.push(`${what} too short for its fields`);
  }
}

const ALPHA_AUX = new Set(['urn:mpeg:mpegB:cicp:systems:auxiliary:alpha', 'urn:mpeg:hevc:2015:auxid:1']);

function scanHeif(bytes: Buffer, scan: ImageScan) {
  const top = boxes(bytes, 0, bytes.length, scan);
  for (const box of top) scan.parts.push(box.type === 'ftyp' ? `ftyp ${latin1(box.body, 0, 4)}` : box.type);
  const meta = top.find((box) => box.type === 'meta');
  if (!meta) {
    scan.problems.push('no meta box');
    return;
  }
  const inMeta = boxes(meta.body, 4, meta.body.length, scan);
  const child = (type: string) => inMeta.find((box) => box.type === type);

  let primary = -1;
  const pitm = child('pitm');
  if (pitm) guarded(scan, 'pitm', () => (primary = pitm.body[0] === 0 ? pitm.body.readUInt16BE(4) : pitm.body.readUInt32BE(4)));

  const items = new Map<number, { type: string; contentType: string }>();
  const iinf = child('iinf');
  if (iinf) {
    const start = iinf.body[0] === 0 ? 6 : 8;
    for (const infe of boxes(iinf.body, start, iinf.body.length, scan).filter((box) => box.type === 'infe')) guarded(scan, 'infe', () => {
      const b = infe.body;
      const version = b[0];
      if (version >= 2) {
        const id = version === 2 ? b.readUInt16BE(4) : b.readUInt32BE(4);
        const typeAt = version === 2 ? 8 : 10;
        const type = latin1(b, typeAt, typeAt + 4);
        const [, afterName] = cString(b, typeAt + 4);
        const contentType = type === 'mime' ? cString(b, afterName)[0] : '';
        items.set(id, { type, contentType });
      } else if (b.length >= 8) {
        // Versions 0 and 1: a name, then a MIME type (no item type).
        const id = b.readUInt16BE(4);
        const [, afterName] = cString(b, 8);
        items.set(id, { type: 'mime', contentType: cString(b, afterName)[0] });
      }
    });
  }
  for (const [id, item] of items) scan.parts.push(`item ${id} ${item.type}${item.contentType ? ` ${item.contentType}` : ''}`);

  // Item references: type → [from, to[]].
  const references: Array<{ type: string; from: number; to: number[] }> = [];
  const iref = child('iref');
  if (iref) {
    const wide = iref.body[0] !== 0;
    for (const ref of boxes(iref.body, 4, iref.body.length, scan)) guarded(scan, `iref ${ref.type}`, () => {
      const b = ref.body;
      let at = 0;
      const id = () => {
        const value = wide ? b.readUInt32BE(at) : b.readUInt16BE(at);
        at += wide ? 4 : 2;
        return value;
      };
      const from = id();
      const count = b.readUInt16BE(at);
      at += 2;
      const to: number[] = [];
      for (let i = 0; i < count && at + (wide ? 4 : 2) <= b.length; i++) to.push(id());
      references.push({ type: ref.type, from, to });
    });
  }

  // Properties and which items they belong to.
  const iprp = child('iprp');
  const properties: Box[] = [];
  const associations = new Map<number, number[]>();
  if (iprp) {
    const inIprp = boxes(iprp.body, 0, iprp.body.length, scan);
    const ipco = inIprp.find((box) => box.type === 'ipco');
    if (ipco) properties.push(...boxes(ipco.body, 0, ipco.body.length, scan));
    for (const ipma of inIprp.filter((box) => box.type === 'ipma')) guarded(scan, 'ipma', () => {
      const b = ipma.body;
      const version = b[0];
      const wideIndex = (b[3] & 1) === 1;
      let at = 4;
      const count = b.readUInt32BE(at);
      at += 4;
      for (let i = 0; i < count && at < b.length; i++) {
        const id = version < 1 ? b.readUInt16BE(at) : b.readUInt32BE(at);
        at += version < 1 ? 2 : 4;
        const n = b[at++];
        const list: number[] = [];
        for (let j = 0; j < n && at < b.length; j++) {
          list.push(wideIndex ? b.readUInt16BE(at) & 0x7fff : b[at] & 0x7f);
          at += wideIndex ? 2 : 1;
        }
        associations.set(id, [...(associations.get(id) ?? []), ...list]);
      }
    });
  }
  const propertiesOf = (id: number) => (associations.get(id) ?? []).map((index) => properties[index - 1]).filter((box): box is Box => Boolean(box));

  const own = propertiesOf(primary);
  let rotated = false;
  let channels = 3;
  let bits = 8;
  for (const property of own) guarded(scan, property.type, () => {
    const b = property.body;
    if (property.type === 'ispe' && b.length >= 12) [scan.width, scan.height] = [b.readUInt32BE(4), b.readUInt32BE(8)];
    else if (property.type === 'irot' && b.length >= 1) rotated = (b[0] & 1) === 1;
    else if (property.type === 'colr' && b.length >= 4) {
      const kind = latin1(b, 0, 4);
      scan.parts.push(`colr ${kind}`);
      if (kind === 'prof' || kind === 'rICC') scan.icc = Buffer.from(b.subarray(4));
    }
  });
  // Bits and channels: pixi when present, else the codec's configuration.
  const pixi = own.find((box) => box.type === 'pixi');
  const av1C = own.find((box) => box.type === 'av1C');
  const hvcC = own.find((box) => box.type === 'hvcC');
  if (pixi && pixi.body.length >= 6) {
    channels = pixi.body[4];
    bits = pixi.body[5];
  } else if (av1C && av1C.body.length >= 3) {
    const flags = av1C.body[2];
    bits = flags & 0x40 ? (flags & 0x20 ? 12 : 10) : 8;
    if (flags & 0x10) channels = 1;
  } else if (hvcC && hvcC.body.length >= 22) {
    bits = (hvcC.body[21] & 7) + 8;
    if ((hvcC.body[16] & 3) === 0) channels = 1;
  }
  const alphaItem = references.some(
    (ref) => ref.type === 'auxl' && ref.to.includes(primary) && propertiesOf(ref.from).some((box) => box.type === 'auxC' && box.body.length > 4 && ALPHA_AUX.has(cString(box.body, 4)[0]))
  );
  scan.channels = channels + (alphaItem ? 1 : 0);
  scan.bits = bits;
  if (rotated) [scan.width, scan.height] = [scan.height, scan.width];
  if (primary < 0 || !items.has(primary)) scan.problems.push('no primary item');
}

// ---------------------------------------------------------------------------------------------
// BMP (only its header: nothing in it is metadata)

function scanBmp(bytes: Buffer, scan: ImageScan) {
  scan.width = Math.abs(bytes.readInt32LE(18));
  scan.height = Math.abs(bytes.readInt32LE(22));
  const depth = bytes.readUInt16LE(28);
  scan.bits = 8;
  scan.channels = depth === 32 ? 4 : 3;
}

// ---------------------------------------------------------------------------------------------
// ICC profiles

/** The description an ICC profile gives itself (its `desc` tag, v2 text or v4 mluc), '' if none. */
export function iccDescription(icc: Buffer): string {
  if (icc.length < 132) return '';
  const count = icc.readUInt32BE(128);
  for (let i = 0; i < count && 132 + i * 12 + 12 <= icc.length; i++) {
    const entry = 132 + i * 12;
    if (latin1(icc, entry, entry + 4) !== 'desc') continue;
    const at = icc.readUInt32BE(entry + 4);
    const size = icc.readUInt32BE(entry + 8);
    if (at + size > icc.length || size < 12) return '';
    const type = latin1(icc, at, at + 4);
    if (type === 'desc') {
      const length = icc.readUInt32BE(at + 8);
      return latin1(icc, at + 12, at + 12 + Math.max(0, length - 1));
    }
    if (type === 'mluc' && size >= 28) {
      const [length, offset] = [icc.readUInt32BE(at + 20), icc.readUInt32BE(at + 24)];
      const text = icc.subarray(at + offset, Math.min(at + offset + length, icc.length));
      let out = '';
      for (let j = 0; j + 1 < text.length; j += 2) out += String.fromCharCode(text.readUInt16BE(j));
      return out;
    }
    return '';
  }
  return '';
}
