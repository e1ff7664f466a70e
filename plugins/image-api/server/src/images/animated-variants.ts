/**
 * The stored files of an animated GIF or WebP (image-variants.ts hands them here): the original resized
 * to an upload's `width`, `.md` and `.th`, every one with all the frames, their delays and the loop
 * count, in the original's format. `.th` is a square centre crop of every frame (scaled up when small,
 * as a still's); `.md` every frame at the medium's width (never scaled up). A frame's width and
 * height are what the JSON reports. The placeholder comes from the first frame.
 *
 * The work is bounded by the animation bounds (animation-bounds.ts: 500 frames, 20 MP in all): `.th`
 * is at most 500 × 160 × 160 = 12.8 MP, `.md` at most what the original holds. An `.md` as wide as
 * the original has the original's frames: it is the stored original's bytes when they carry nothing
 * a variant may not (metadata kept by `keepExif`, a colour profile), rather than the same frames
 * encoded again (seconds of CPU for a GIF, and a bigger file).
 *
 * APNG: libvips reads only an APNG's first frame, so an APNG is never resized to `width` (its frames
 * would be lost): its original stays as uploaded (image-variants.ts); its variants are stills.
 */
import sharp, { type ResizeOptions, type Sharp } from 'sharp';
import type { ProbedImage } from './image-probe';
import { placeholderOf, type Placeholder } from './placeholder';
import { encodeAnimation, everyFrame, type AnimatedFormat } from './animation-encoding';
import type { EncodedImage, VariantSet, VariantOptions } from './variant-set';

type Variants = Pick<VariantSet, 'thumb' | 'medium' | 'placeholder'>;

/** An animation as the probe read it (a frame's width and height, its frames), with its bytes. */
export type AnimationSource = Pick<ProbedImage, 'width' | 'height' | 'pages'> & { type: AnimatedFormat; input: Buffer };

/** Every frame: as many pixels as the probe read from the header and the bounds let through. */
const framesOf = (source: AnimationSource) => sharp(source.input, everyFrame(source.width * source.height * source.pages));

async function encoded(pipeline: Sharp, format: AnimatedFormat, quality: number): Promise<EncodedImage> {
  const { data, info } = await encodeAnimation(pipeline, format, quality).toBuffer({ resolveWithObject: true });
  // The frames are stacked in libvips' image: a frame is `pageHeight` high.
  return { buffer: data, format, width: info.width, height: info.pageHeight ?? info.height, channels: info.channels, bits: 8 };
}

/**
 * The original resized to `width` (narrower than its frames): every frame, aspect kept; metadata
 * dropped unless `keepExif` (the colour profile stays, as on any original).
 */
export function resizedAnimation(source: AnimationSource, keepExif: boolean, width: number, quality: number): Promise<EncodedImage> {
  const frames = framesOf(source);
  return encoded((keepExif ? frames.keepMetadata() : frames.keepIccProfile()).resize({ width }), source.type, quality);
}

/** Whether the stored original may serve as `.md` as it is: no metadata kept, no colour profile (variants are sRGB). */
async function mayServeAsMedium(original: EncodedImage, keepExif: boolean): Promise<boolean> {
  if (keepExif) return false;
  const meta = await sharp(original.buffer).metadata();
  return !meta.icc && !meta.exif && !meta.xmp && !meta.iptc;
}

/**
 * `.md`, `.th` and the placeholder of an animation whose stored original is `original` (`options`: the
 * medium no wider than an original resized to `width`). One after another: one encoder's memory at a
 * time (libwebp's holds about 85 MB for an animation at the bounds).
 */
export async function animatedVariants(source: AnimationSource, original: EncodedImage, options: VariantOptions, quality: number): Promise<Variants> {
  const variant = (size: ResizeOptions) => smallerGif(original, size, quality, source);
  const medium =
    original.width <= options.mediumWidth && (await mayServeAsMedium(original, options.keepExif))
      ? { ...original, bits: 8 }
      : await variant({ width: options.mediumWidth, withoutEnlargement: true });
  const thumb = await variant({ width: options.thumbSize, height: options.thumbSize, fit: 'cover', position: 'centre' });
  return { medium, thumb, placeholder: await firstFramePlaceholder(source, options) };
}

/**
 * Every frame resized to `size` and encoded. A GIF variant of fewer pixels that comes out bigger than
 * the original (frames of a few flat colours: resampled edges bring colours in between, and runs that
 * compressed well no longer do; 401 KB for a 500 px `.md` of a 600 px GIF of 331 KB) is sampled again
 * from the nearest pixels, the source's own colours, which compress as they did (the smaller is kept).
 */
async function smallerGif(original: EncodedImage, size: ResizeOptions, quality: number, source: AnimationSource): Promise<EncodedImage> {
  const first = await encoded(framesOf(source).resize(size), source.type, quality);
  if (source.type !== 'gif' || first.buffer.length <= original.buffer.length || first.width * first.height >= original.width * original.height) return first;
  const sampled = await encoded(framesOf(source).resize({ ...size, kernel: 'nearest' }), source.type, quality);
  return sampled.buffer.length < first.buffer.length ? sampled : first;
}

/** The placeholder, from the first frame at the medium's width (as a still's comes from its medium). */
async function firstFramePlaceholder(source: AnimationSource, options: VariantOptions): Promise<Placeholder> {
  const { data, info } = await sharp(source.input, { failOn: 'warning', limitInputPixels: source.width * source.height })
    .resize({ width: options.mediumWidth, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return placeholderOf({ data, width: info.width, height: info.height, channels: info.channels });
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The frames an APNG declares (its `acTL` chunk, which comes before the image data), 1 for any other
 * PNG. Chunks are walked by their lengths, each step forward; a length past the end stops the walk.
 */
export function apngFrames(bytes: Buffer): number {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 1;
  for (let at = 8; at + 12 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || at + 12 + length > bytes.length) break;
    if (type === 'acTL' && length >= 8) return Math.max(1, bytes.readUInt32BE(at + 8));
    at += 12 + length;
  }
  return 1;
}
