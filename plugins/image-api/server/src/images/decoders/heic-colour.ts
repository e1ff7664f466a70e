/**
 * What a HEIC's numbers mean (heic-worker.ts): libheif decodes them as they were coded and applies no
 * colour management, and phones code them in Display P3, described by a `colr` property: an ICC
 * profile, or nclx code points (ITU-T H.273: colour primaries 12, P3 D65; transfer 13, sRGB's curve).
 * Read without colour, P3 numbers shown as sRGB look washed out ((28,200,58) became (94,197,80)).
 *
 * libheif-js binds libheif's colour-profile calls only as its C functions, which take the handle's
 * address: embind keeps that in the handle object (`$$.ptr`). A build without it reads as "no
 * profile" (sRGB, as before); the HEIC colour tests catch that.
 */
import sharp from 'sharp';

/** nclx code points (ITU-T H.273). */
export interface Nclx {
  primaries: number;
  transfer: number;
  matrix: number;
  fullRange: boolean;
}

/** The image's colour description: an ICC profile, nclx code points, or none. */
export type HeifColour = { icc: Buffer } | { nclx: Nclx } | null;

/** The libheif C functions and heap views this reads through (libheif-js's emscripten module). */
export interface LibheifColourCalls {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _heif_image_handle_get_raw_color_profile_size(handle: number): number;
  /** Returns a `heif_error` (12 bytes) through its first argument. */
  _heif_image_handle_get_raw_color_profile(error: number, handle: number, out: number): void;
  _heif_image_handle_get_nclx_color_profile(error: number, handle: number, out: number): void;
  _heif_nclx_color_profile_free(profile: number): void;
}

/** H.273 code points of Display P3 as phones write it. */
const P3_D65 = 12;
const SRGB_TRANSFER = 13;

/** The handle's address in the WebAssembly heap, where embind keeps it. */
export const addressOf = (handle: unknown): number | null => {
  const pointer = (handle as { $$?: { ptr?: unknown } } | null)?.$$?.ptr;
  return typeof pointer === 'number' && pointer > 0 ? pointer : null;
};

/**
 * The primary image's colour description (`handle`: libheif-js's image handle). An ICC profile
 * comes first: where a file has both, the profile is what describes the colours. libheif hands over
 * no nclx when the file has none.
 */
export function colourOf(libheif: LibheifColourCalls, handle: unknown): HeifColour {
  const address = addressOf(handle);
  if (address === null) return null;
  const error = libheif._malloc(16);
  try {
    // The profile's size is its colr box's, within the file.
    const size = libheif._heif_image_handle_get_raw_color_profile_size(address);
    if (size > 0) {
      const profile = libheif._malloc(size);
      try {
        libheif._heif_image_handle_get_raw_color_profile(error, address, profile);
        if (libheif.HEAP32[error >> 2] === 0) return { icc: Buffer.from(libheif.HEAPU8.subarray(profile, profile + size)) };
      } finally {
        libheif._free(profile);
      }
    }
  } finally {
    libheif._free(error);
  }
  const nclx = nclxOf(libheif, handle);
  return nclx && { nclx };
}

/**
 * The image's nclx code points, whether or not an ICC profile describes its colours too: its
 * matrix and range are how libheif turns its YCbCr into RGB (decoders/yuv-to-rgb.ts); null when the
 * file has none.
 */
export function nclxOf(libheif: LibheifColourCalls, handle: unknown): Nclx | null {
  const address = addressOf(handle);
  if (address === null) return null;
  const error = libheif._malloc(16);
  const out = libheif._malloc(4);
  try {
    libheif._heif_image_handle_get_nclx_color_profile(error, address, out);
    if (libheif.HEAP32[error >> 2] !== 0) return null;
    const nclx = libheif.HEAPU32[out >> 2];
    // heif_color_profile_nclx: version (u8), then primaries, transfer and matrix (enums, 32 bits each), then full_range_flag (u8).
    const heap = libheif.HEAP32;
    const colour = { primaries: heap[(nclx + 4) >> 2], transfer: heap[(nclx + 8) >> 2], matrix: heap[(nclx + 12) >> 2], fullRange: libheif.HEAPU8[nclx + 16] !== 0 };
    libheif._heif_nclx_color_profile_free(nclx);
    return colour;
  } finally {
    libheif._free(error);
    libheif._free(out);
  }
}

/**
 * An ICC profile for RGB pixels, by its header (ICC.1, 7.2): its size as declared, the `acsp`
 * signature, the RGB data colour space. Anything else would ride along in the JPEG (lcms refuses it,
 * so the variants would not be converted either): such a file is stored untagged, as sRGB.
 */
const isRgbProfile = (icc: Buffer) =>
  icc.length >= 128 && icc.readUInt32BE(0) === icc.length && icc.toString('latin1', 36, 40) === 'acsp' && icc.toString('latin1', 16, 20) === 'RGB ';

let displayP3: Promise<Buffer> | null = null;

/**
 * libvips' own Display P3 profile (sharp's built-in `p3`: a compact ICC profile, P3 primaries, D65
 * white, sRGB's curve, 480 bytes), taken from an image sharp tags with it.
 */
function displayP3Profile(): Promise<Buffer> {
  displayP3 ??= sharp({ create: { width: 1, height: 1, channels: 3, background: '#ffffff' } })
    .withIccProfile('p3')
    .png()
    .toBuffer()
    .then(async (png) => {
      const { icc } = await sharp(png).metadata();
      if (!icc) throw new Error('libvips wrote no Display P3 profile');
      return icc;
    });
  return displayP3;
}

/**
 * The ICC profile the numbers are in: the file's own (an RGB one), Display P3's for nclx P3; null for sRGB and
 * for what is left as sRGB (other nclx code points: BT.709 is sRGB's primaries; wide-gamut video
 * spaces such as BT.2020 with PQ or HLG are not phones' still photos).
 */
export async function profileOf(colour: HeifColour): Promise<Buffer | null> {
  if (!colour) return null;
  if ('icc' in colour) return isRgbProfile(colour.icc) ? colour.icc : null;
  return colour.nclx.primaries === P3_D65 && colour.nclx.transfer === SRGB_TRANSFER ? displayP3Profile() : null;
}
