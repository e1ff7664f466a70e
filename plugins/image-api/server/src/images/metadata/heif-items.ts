/**
 * The metadata items a HEIF (HEIC, AVIF) declares: its `meta` box's item information (`iinf`) lists
 * every item by type, and phones store EXIF as an `Exif` item and XMP as a `mime` item of type
 * application/rdf+xml. Only read, never rewritten: a HEIF with metadata is re-encoded (AVIF) or
 * decoded to pixels (HEIC), and libvips writes neither item into what it encodes.
 *
 * Bounded: boxes are walked forward by their sizes within their parent's bounds, nothing is read past
 * the input; what cannot be read ends the walk with what was found so far.
 */

const BOX_HEADER = 8;
/** A full box's version and flags follow its header. */
const FULL_BOX_HEADER = 12;

interface Box {
  start: number;
  end: number;
}

/** The boxes directly inside `[from, to)`, in order, stopping at one that does not fit. */
function* boxes(bytes: Buffer, from: number, to: number): Generator<Box> {
  for (let at = from; at + BOX_HEADER <= to; ) {
    let size = bytes.readUInt32BE(at);
    if (size === 1) {
      // A 64-bit size; one past 2^53 does not fit in any input anyway.
      if (at + 16 > to) return;
      size = bytes.readUInt32BE(at + 8) * 2 ** 32 + bytes.readUInt32BE(at + 12);
    } else if (size === 0) {
      size = to - at;
    }
    if (size < BOX_HEADER || at + size > to) return;
    yield { start: at, end: at + size };
    at += size;
  }
}

const first = (bytes: Buffer, found: Iterable<Box>, type: string): Box | null => {
  for (const box of found) if (bytes.toString('latin1', box.start + 4, box.start + 8) === type) return box;
  return null;
};

/** A NUL-terminated string at `at`, within `end`: its text and the offset past its NUL (or `end`). */
function cString(bytes: Buffer, at: number, end: number): { text: string; next: number } {
  // Searched within the box only: a box without a NUL costs its own length, not the file's.
  const nul = at < end ? bytes.subarray(at, end).indexOf(0) : -1;
  const stop = nul < 0 ? end : at + nul;
  return { text: bytes.toString('latin1', at, stop), next: Math.min(stop + 1, end) };
}

const EXIF = Buffer.from('Exif', 'latin1').readUInt32BE(0);
const MIME = Buffer.from('mime', 'latin1').readUInt32BE(0);
const INFE = Buffer.from('infe', 'latin1').readUInt32BE(0);
const KINDS = 3;

/** What an item information entry (`infe`, version 2 or 3) names: 'Exif', 'XMP', another MIME item, or null. */
function metadataItem(bytes: Buffer, infe: Box): string | null {
  const version = bytes[infe.start + BOX_HEADER];
  if (version < 2) return null;
  // item_ID (16 bits in version 2, 32 in 3), item_protection_index (16), item_type (4CC).
  const typeAt = infe.start + FULL_BOX_HEADER + (version === 2 ? 2 : 4) + 2;
  if (typeAt + 4 > infe.end) return null;
  const itemType = bytes.readUInt32BE(typeAt);
  if (itemType === EXIF) return 'Exif item';
  if (itemType !== MIME) return null;
  const name = cString(bytes, typeAt + 4, infe.end);
  const contentType = cString(bytes, name.next, infe.end).text;
  return /rdf\+xml|xmp/i.test(contentType) ? 'XMP item' : 'MIME item';
}

/** The metadata items (EXIF, XMP, other MIME content) the HEIF's `meta` box declares, each named once. */
export function heifMetadataItems(bytes: Buffer): string[] {
  const meta = first(bytes, boxes(bytes, 0, bytes.length), 'meta');
  if (!meta) return [];
  const iinf = first(bytes, boxes(bytes, meta.start + FULL_BOX_HEADER, meta.end), 'iinf');
  if (!iinf) return [];
  // entry_count: 16 bits in version 0, 32 after.
  const entries = iinf.start + FULL_BOX_HEADER + (bytes[iinf.start + BOX_HEADER] === 0 ? 2 : 4);
  const found = new Set<string>();
  for (const infe of boxes(bytes, entries, iinf.end)) {
    const item = bytes.readUInt32BE(infe.start + 4) === INFE && infe.end - infe.start > FULL_BOX_HEADER ? metadataItem(bytes, infe) : null;
    if (item) found.add(item);
    // Every kind found: the rest of a long list can name nothing new.
    if (found.size === KINDS) break;
  }
  return [...found];
}
