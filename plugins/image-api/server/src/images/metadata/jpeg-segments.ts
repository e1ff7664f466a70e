/**
 * A JPEG without its metadata, losslessly: its segments are walked from SOI to the true end of the
 * image (EOI, found by following the segments and, after each SOS, the entropy-coded data), and what
 * describes the picture is copied as it is: JFIF APP0, the ICC profile's APP2 chunks, Adobe's APP14
 * (it says how CMYK and YCCK data are coded), the tables, frame and scan headers, the scan data, EOI.
 * Dropped: APP1 (EXIF with GPS and the camera's serials, XMP, extended XMP), APP13 (IPTC, Photoshop),
 * every other APPn (MPF's index of further pictures, makers' blocks, JFXX thumbnails), COM, and
 * everything after EOI: a motion photo's video, an MPO's second picture with its own EXIF, any payload.
 *
 * Bounded: every step moves forward (a segment by its length, the scan data by a native byte search),
 * so the time is linear in the file whatever its lengths say; nothing is read past the input. A file
 * whose structure cannot be followed (cut short, bytes where a marker must be, a second SOI) is
 * refused as libjpeg refuses it under `failOn: 'warning'`.
 */
import { errors } from '../../http/api-error';
import { ByteRewrite, type Stripped } from './byte-rewrite';

const MARKER = 0xff;
const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const RST0 = 0xd0;
const RST7 = 0xd7;
const TEM = 0x01;
const APP0 = 0xe0;
const APP2 = 0xe2;
const APP14 = 0xee;
const APP15 = 0xef;
const COM = 0xfe;

const JFIF = Buffer.from('JFIF\0', 'latin1');
const ICC_PROFILE = Buffer.from('ICC_PROFILE\0', 'latin1');
const ADOBE = Buffer.from('Adobe', 'latin1');

/** The APPn segments kept, each recognised by the identifier its payload starts with. */
const KEPT_APPS: ReadonlyMap<number, Buffer> = new Map([
  [APP0, JFIF],
  [APP2, ICC_PROFILE],
  [APP14, ADOBE],
]);

const truncated = () => errors.invalidImage('truncated');

/** Bytes looked at one by one after a 0xFF before the native search takes over (dense stuffing costs no call per byte). */
const NEARBY = 8;

/** The offset of the next 0xFF at or after `at`, or -1. */
function nextMarkerByte(bytes: Buffer, at: number): number {
  const near = Math.min(at + NEARBY, bytes.length);
  for (let i = at; i < near; i++) if (bytes[i] === MARKER) return i;
  return near < bytes.length ? bytes.indexOf(MARKER, near) : -1;
}

/** Past the entropy-coded data starting at `at`: the offset of the marker that ends it. */
function endOfScan(bytes: Buffer, at: number): number {
  for (;;) {
    const ff = nextMarkerByte(bytes, at);
    if (ff < 0 || ff + 1 >= bytes.length) throw truncated();
    const next = bytes[ff + 1];
    // 0xFF00 is a stuffed data byte, RSTn a restart inside the scan; 0xFFFF a fill byte before a marker.
    if (next === 0x00 || (next >= RST0 && next <= RST7)) at = ff + 2;
    else if (next === MARKER) at = ff + 1;
    else return ff;
  }
}

function startsWith(bytes: Buffer, at: number, end: number, prefix: Buffer): boolean {
  return end - at >= prefix.length && bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

/** The JPEG without its metadata; `write` false only tallies what would be removed. */
export function stripJpeg(bytes: Buffer, write = true): Stripped {
  if (bytes.length < 4 || bytes[0] !== MARKER || bytes[1] !== SOI) throw errors.invalidImage('not a JPEG');
  const out = new ByteRewrite(bytes, write);
  let at = 2;
  out.keep(at);
  for (;;) {
    if (at >= bytes.length) throw truncated();
    if (bytes[at] !== MARKER) throw errors.invalidImage('bytes between segments');
    // Any number of 0xFF fill bytes may come before a marker.
    let m = at + 1;
    while (m < bytes.length && bytes[m] === MARKER) m++;
    if (m >= bytes.length) throw truncated();
    const marker = bytes[m];
    if (marker === EOI) {
      out.keep(m + 1);
      out.drop(bytes.length, 'after EOI');
      return out.result();
    }
    if (marker === SOI || marker === 0x00) throw errors.invalidImage('misplaced marker');
    if ((marker >= RST0 && marker <= RST7) || marker === TEM) {
      at = m + 1;
      out.keep(at);
      continue;
    }
    if (m + 3 > bytes.length) throw truncated();
    const length = bytes.readUInt16BE(m + 1);
    if (length < 2) throw errors.invalidImage('segment length');
    const payload = m + 3;
    const end = m + 1 + length;
    if (end > bytes.length) throw truncated();
    if (marker >= APP0 && marker <= APP15) {
      const identifier = KEPT_APPS.get(marker);
      if (identifier && startsWith(bytes, payload, end, identifier)) out.keep(end);
      else out.drop(end, `APP${marker - APP0}`);
    } else if (marker === COM) {
      out.drop(end, 'COM');
    } else {
      out.keep(end);
    }
    at = marker === SOS ? endOfScan(bytes, end) : end;
    out.keep(at);
  }
}
