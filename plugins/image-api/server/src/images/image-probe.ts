/**
 * Decides what the received bytes are (the bytes decide, never the name or a header) and reads the
 * image's header: type, dimensions, frames, orientation. Refuses what is not an allowed image, and
 * images past the bounds of what image work may cost (animation-bounds.ts), before anything is decoded.
 */
import FileType from 'file-type';
import sharp, { type Metadata } from 'sharp';
import { errors } from '../http/api-error';
import { metadataIn } from './metadata/strip-metadata';
import { HEIF_OPEN } from './decoders/image-decoders';
import { checkBounds, checkFrames, type ImageLimits } from './animation-bounds';
import type { ImageType } from '../config';

export type { ImageLimits } from './animation-bounds';

export interface ProbedImage {
  type: ImageType;
  /** Of the stored orientation, i.e. after EXIF orientation is applied. */
  width: number;
  height: number;
  /** Frames of an animation, 1 for a still image. */
  pages: number;
  /** Bit depth per sample. */
  bits: number;
  channels: number;
  /** EXIF orientation, 1 when upright or absent. */
  orientation: number;
  /**
   * Metadata present: what metadata/ would remove (EXIF, XMP, IPTC, comments, text chunks, a JPEG's
   * trailer...), or a HEIF's EXIF or XMP item.
   */
  hasMetadata: boolean;
}

const TYPE_BY_EXT: Record<string, ImageType> = { jpg: 'jpeg', png: 'png', apng: 'png', gif: 'gif', webp: 'webp', bmp: 'bmp' };

/**
 * HEIF is a container: file-type names every one `heic` or `avif` by its major brand, and AVIF files
 * written with the major brand `mif1` would pass for HEIC. The brands the file declares (major and
 * compatible, in its `ftyp` box) say which codec it holds. (libvips reports the codec from the brands
 * too; a file whose data is not what its brands say fails to decode, and is refused then: 311.)
 */
const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis']);

function heifType(bytes: Buffer): ImageType | null {
  const boxSize = bytes.length >= 16 ? bytes.readUInt32BE(0) : 0;
  if (boxSize < 16 || boxSize > bytes.length) return null;
  // Major brand at 8, minor version at 12, compatible brands from 16 to the box's end.
  const brands = [bytes.toString('latin1', 8, 12)];
  for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(bytes.toString('latin1', at, at + 4));
  if (brands.some((brand) => AVIF_BRANDS.has(brand))) return 'avif';
  if (brands.some((brand) => HEIC_BRANDS.has(brand))) return 'heic';
  return null;
}
const BITS_BY_DEPTH: Record<string, number> = { uchar: 8, char: 8, ushort: 16, short: 16, uint: 32, int: 32, float: 32, double: 64 };

/** SVG is text, so magic numbers miss it: look for an <svg> root near the start. */
const looksLikeSvg = (bytes: Buffer) => {
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  return /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head);
};

/** The image type of the bytes, or the error table's refusal (310, 314). */
export async function sniffType(bytes: Buffer, allowed: readonly ImageType[]): Promise<ImageType> {
  let detected: Awaited<ReturnType<typeof FileType.fromBuffer>>;
  try {
    detected = await FileType.fromBuffer(bytes);
  } catch {
    // A header cut short (a TIFF or JPEG 2000 of a few bytes) ends file-type's reader early.
    throw errors.invalidImage('truncated header');
  }
  const isHeif = detected?.ext === 'heic' || detected?.ext === 'avif';
  if (isHeif && !heifType(bytes)) throw errors.disabledType('heif', allowed);
  const type = detected && (isHeif ? heifType(bytes) : TYPE_BY_EXT[detected.ext]);
  if (type) {
    if (!allowed.includes(type)) throw errors.disabledType(type, allowed);
    return type;
  }
  if (detected?.mime.startsWith('image/')) throw errors.disabledType(detected.ext, allowed);
  if (looksLikeSvg(bytes)) throw errors.disabledType('svg', allowed);
  throw errors.notAnImage();
}

/** Width and height from a BMP's DIB header (sharp has no BMP loader; see image-variants.ts). */
function bmpDimensions(bytes: Buffer): { width: number; height: number; bits: number } {
  if (bytes.length < 26) throw errors.invalidImage('truncated header');
  const headerSize = bytes.readUInt32LE(14);
  if (headerSize === 12) {
    return { width: bytes.readUInt16LE(18), height: bytes.readUInt16LE(20), bits: 8 };
  }
  if (bytes.length < 30) throw errors.invalidImage('truncated header');
  return { width: Math.abs(bytes.readInt32LE(18)), height: Math.abs(bytes.readInt32LE(22)), bits: 8 };
}

/**
 * A GIF ends with its trailer byte (0x3B). libvips reads a GIF cut inside a later frame without a
 * warning, so without this check a truncated animation would be stored.
 */
const GIF_TRAILER = 0x3b;

export async function probeImage(bytes: Buffer, allowed: readonly ImageType[], limits: ImageLimits): Promise<ProbedImage> {
  const type = await sniffType(bytes, allowed);
  if (type === 'gif' && bytes[bytes.length - 1] !== GIF_TRAILER) throw errors.invalidImage('truncated');
  // Counted from the container first: libvips would keep a record of every frame while it reads them.
  checkFrames(bytes, type, limits);
  let probed: ProbedImage;
  /** A HEIF's EXIF or XMP as libheif hands it to libvips (heif-items.ts reads the boxes too). */
  let heifMetadata = false;
  if (type === 'bmp') {
    probed = { type, pages: 1, channels: 4, orientation: 1, hasMetadata: false, ...bmpDimensions(bytes) };
  } else {
    let meta: Metadata;
    try {
      // A HEIF's size is read whatever it is: the pixel cap below answers 413 for one too large.
      meta = await sharp(bytes, type === 'heic' || type === 'avif' ? { ...HEIF_OPEN, limitInputPixels: false } : {}).metadata();
    } catch {
      throw errors.invalidImage();
    }
    probed = {
      type,
      width: meta.autoOrient?.width ?? meta.width,
      height: meta.autoOrient?.height ?? meta.height,
      // A HEIC may hold more images (a burst, a depth map): its primary one is what is stored.
      pages: type === 'heic' ? 1 : Math.max(1, meta.pages ?? 1),
      bits: meta.bitsPerSample ?? BITS_BY_DEPTH[meta.depth] ?? 8,
      channels: meta.channels,
      orientation: meta.orientation ?? 1,
      hasMetadata: false,
    };
    heifMetadata = (type === 'heic' || type === 'avif') && Boolean(meta.exif || meta.xmp || meta.iptc);
    // For multi-frame images the frame height is pageHeight.
    if (probed.pages > 1 && meta.pageHeight) probed.height = meta.pageHeight;
  }
  if (!probed.width || !probed.height) throw errors.invalidImage('zero dimensions');
  checkBounds(probed, limits);
  // From the container, not from libvips (which sees no GIF comment, PNG text chunk or JPEG trailer);
  // last, once the cheaper refusals have answered. Refuses a structure that cannot be followed.
  probed.hasMetadata = heifMetadata || metadataIn(bytes, type).length > 0;
  return probed;
}
