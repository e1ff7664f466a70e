/**
 * The image work: the stored original (upright, BMP as PNG, HEIC as JPEG, animations untouched), its
 * two variants, `.th` (square centre crop, scaled up when small) and `.md` (fixed width, never scaled
 * up), and its placeholder (placeholder.ts), all from one decode. An animated GIF or WebP keeps every
 * frame in all three files (animated-variants.ts).
 */
import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { errors, isApiError } from '../http/api-error';
import type { ProbedImage } from './image-probe';
import { isClean, stripLossless } from './image-metadata';
import { settleAll } from './settle-all';
import { concurrencyLimit } from './concurrency-limit';
import { bmpAsPng } from './decoders/bmp-renditions';
import { heicRenditions } from './decoders/heic-renditions';
import type { DecodedPixels } from './decoders/heic-job';
import { HEIF_OPEN } from './decoders/image-decoders';
import { withExifBlock } from './exif-block';
import { AVIF_EFFORT, AVIF_QUALITY } from '../delivery/render';
import { placeholderOf, type Placeholder } from './placeholder';
import { everyFrame as framesInput, isAnimatedFormat } from './animation-encoding';
import { animatedVariants, apngFrames, resizedAnimation } from './animated-variants';
import type { EncodedImage, OutputFormat, Renditions, VariantOptions } from './renditions';

export type { EncodedImage, OutputFormat, Renditions, VariantOptions } from './renditions';

/**
 * AVIF encoding of stored AVIF images (their variants, and originals re-encoded): the transformations'
 * settings (delivery/render.ts: effort 2, quality 55, about JPEG at 85), which keep a 12 MP upload's
 * variants within the upload figures (docs/performance.md, "HEIC, AVIF and placeholders"); originals
 * re-encoded at 75.
 */
export const AVIF_UPLOAD = { effort: AVIF_EFFORT, quality: AVIF_QUALITY, originalQuality: 75 } as const;

/** Quality of a re-encoded original: high, so a rotation or a metadata strip costs little. */
const originalQuality = (format: OutputFormat, options: VariantOptions) =>
  format === 'avif' ? AVIF_UPLOAD.originalQuality : Math.max(options.jpegQuality, 92);
const variantQuality = (format: OutputFormat, options: VariantOptions) => (format === 'avif' ? AVIF_UPLOAD.quality : options.jpegQuality);

type SharpInput = { input: Buffer; options: SharpOptions };

const heifOpen = (probed: ProbedImage) => (probed.type === 'avif' ? HEIF_OPEN : {});

function encode(pipeline: Sharp, format: OutputFormat, quality: number): Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality });
    case 'png':
      return pipeline.png();
    case 'webp':
      return pipeline.webp({ quality });
    case 'gif':
      return pipeline.gif();
    case 'avif':
      return pipeline.avif({ quality, effort: AVIF_UPLOAD.effort });
  }
}

async function render(pipeline: Sharp, format: OutputFormat, quality: number): Promise<EncodedImage> {
  const { data, info } = await encode(pipeline, format, quality).toBuffer({ resolveWithObject: true });
  return { buffer: data, format, width: info.width, height: info.height, channels: info.channels, bits: 8 };
}

/**
 * The stored original and its variants. `width` (an upload's parameter): the original is resized to
 * it first when it is wider (aspect kept, never enlarged, every frame of an animation), and the
 * variants follow from it (the medium is never wider than the original).
 */
export function buildRenditions(bytes: Buffer, probed: ProbedImage, options: VariantOptions, width: number | null = null): Promise<Renditions> {
  // Decoded and rendered in a worker thread, one HEIC at a time per process (decoders/heic-renditions.ts).
  if (probed.type === 'heic') return heicRenditions(bytes, options, width);
  // libvips' AV1 decoder holds about 200 MB for a 12 MP AVIF (two at once took the bench's server to
  // 940 MB): one AVIF at a time per process, as HEICs and BMPs.
  if (probed.type === 'avif') return oneAvifAtATime(() => renditionsOf(bytes, bytes, probed, options, width));
  // Work on every frame (the variants, `width`, a metadata strip) takes seconds, and libwebp's animation
  // encoder holds about 85 MB for an animation at the bounds (animation-bounds.ts): one animation at a time.
  if (probed.pages > 1) return oneAnimationAtATime(() => renditionsOf(bytes, bytes, probed, options, width));
  if (probed.type !== 'bmp') return renditionsOf(bytes, bytes, probed, options, width);
  // sharp has no BMP loader: a BMP is turned into a PNG first, off the event loop (bmp-renditions.ts).
  // A 1-bit BMP packs 32 pixels a byte, so under the byte limit it may be 80 MP, where other formats
  // are at most a few: one at a time, its PNG and renditions stay within the memory figures.
  // The worker's PNG is the stored original as it is: re-encoding 80 MP would hold libvips to
  // 100 MB more, for a few percent of file size.
  return oneBmpAtATime(async () => {
    const png = await bmpAsPng(bytes);
    return renditionsOf(png, png, probed, options, width);
  });
}

/**
 * Nothing stored is larger than what may be sent (`maxBytes`): a file the image work made bigger (an
 * animation resized to `width`, whose frames' colours no longer compress as they did; an original
 * re-encoded to remove its metadata or turn it upright; a HEIC as a JPEG) is refused (413/313) rather
 * than stored. Checked on every file, so it holds for variants that keep an animation too.
 */
export function checkStoredBytes({ original, medium, thumb }: Renditions, maxBytes: number): void {
  if (Math.max(original.buffer.length, medium.buffer.length, thumb.buffer.length) > maxBytes) throw errors.storedTooBig(maxBytes);
}

const oneBmpAtATime = concurrencyLimit(1);
const oneAvifAtATime = concurrencyLimit(1);
const oneAnimationAtATime = concurrencyLimit(1);

/**
 * Every frame, as libvips decodes an animation: the pixel cap (sharp's `limitInputPixels`, a second
 * net behind the probe's) is the frames' pixels the probe read from the header and let through.
 */
const everyFrame = (probed: ProbedImage): SharpOptions => ({ ...framesInput(probed.width * probed.height * probed.pages), ...heifOpen(probed) });

/** The renditions of the image whose bytes sharp reads in `input` (`bytes` as sent, or a BMP's PNG). */
async function renditionsOf(input: Buffer, bytes: Buffer, probed: ProbedImage, options: VariantOptions, width: number | null): Promise<Renditions> {
  const isBmp = probed.type === 'bmp';
  // A BMP has no orientation to apply (and checking would make libvips hold the whole image).
  const source: SharpInput = { input, options: { autoOrient: !isBmp, failOn: 'warning', limitInputPixels: options.maxPixels, ...heifOpen(probed) } };
  const format: OutputFormat = isBmp ? 'png' : (probed.type as OutputFormat);
  const open = () => sharp(source.input, source.options);

  // An APNG keeps its frames, so it keeps its width too (animated-variants.ts).
  const resizeTo = width !== null && width < probed.width && !(format === 'png' && apngFrames(bytes) > 1) ? width : null;

  try {
    if (probed.pages > 1 && isAnimatedFormat(format)) {
      // Every frame kept in every file, one file after another (animated-variants.ts).
      const animation = { type: format, input, width: probed.width, height: probed.height, pages: probed.pages };
      const original = await (resizeTo === null
        ? storedOriginal(bytes, probed, format, open, options)
        : resizedAnimation(animation, options.keepExif, resizeTo, originalQuality(format, options)));
      return { original, ...(await animatedVariants(animation, original, narrowed(options, resizeTo), variantQuality(format, options))) };
    }
    const [original, variants] = await settleAll<[EncodedImage, Variants]>([
      resizeTo === null ? storedOriginal(bytes, probed, format, open, options) : resizedOriginal(bytes, probed, format, open, options, resizeTo),
      renderVariants(open, format, narrowed(options, resizeTo)),
    ]);
    return { original, ...variants };
  } catch (error) {
    if (isApiError(error)) throw error;
    throw errors.invalidImage();
  }
}

type Variants = Pick<Renditions, 'thumb' | 'medium' | 'placeholder'>;

/** The medium is never wider than an original resized to `width`. */
const narrowed = (options: VariantOptions, width: number | null) =>
  width === null ? options : { ...options, mediumWidth: Math.min(options.mediumWidth, width) };

/**
 * The renditions of decoded pixels (a HEIC's, upright: decoders/heic-worker.ts runs this beside its
 * decoder): the stored original encoded as a JPEG (on white where it has transparency) and the
 * variants from the same pixels. The file's EXIF goes into the JPEG only with `keepExif`, as a JPEG's
 * would stay.
 */
export async function pixelRenditions(decoded: DecodedPixels, bytes: Buffer, options: VariantOptions, width: number | null): Promise<Renditions> {
  try {
    const raw = { width: decoded.width, height: decoded.height, channels: decoded.channels };
    const open = () => {
      const pixels = sharp(decoded.pixels, { raw });
      return decoded.channels === 4 ? pixels.flatten({ background: '#ffffff' }) : pixels;
    };
    const resizeTo = width !== null && width < decoded.width ? width : null;
    const exif = options.keepExif ? (await sharp(bytes, HEIF_OPEN).metadata()).exif : undefined;
    const [original, variants] = await settleAll<[EncodedImage, Variants]>([
      render(resizeTo === null ? open() : open().resize({ width: resizeTo }), 'jpeg', originalQuality('jpeg', options)).then((image) =>
        exif ? { ...image, buffer: withExifBlock(image.buffer, exif) } : image
      ),
      renderVariants(open, 'jpeg', narrowed(options, resizeTo)),
    ]);
    return { original, ...variants };
  } catch (error) {
    if (isApiError(error)) throw error;
    throw errors.invalidImage();
  }
}

/**
 * `.md` and `.th` from one decode: the image is decoded once, shrunk on load, to the medium's size;
 * the medium is encoded from those pixels and the thumb cropped from them. Only when the medium is
 * too small for a sharp 160×160 crop (a panorama, say) is the thumb made from the original again.
 */
async function renderVariants(open: () => Sharp, format: OutputFormat, options: VariantOptions): Promise<Variants> {
  const { data, info } = await open()
    .resize({ width: options.mediumWidth, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = () => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  const crop = { fit: 'cover', position: 'centre' } as const;
  const smallMedium = Math.min(info.width, info.height) < options.thumbSize && info.width === options.mediumWidth;
  const quality = variantQuality(format, options);
  const [medium, thumb, placeholder] = await settleAll<[EncodedImage, EncodedImage, Placeholder]>([
    render(pixels(), format, quality),
    render((smallMedium ? open() : pixels()).resize(options.thumbSize, options.thumbSize, crop), format, quality),
    placeholderOf({ data, width: info.width, height: info.height, channels: info.channels }),
  ]);
  return { medium, thumb, placeholder };
}

/**
 * The stored original of a still resized to `width` (narrower than the image): upright, re-encoded;
 * metadata dropped unless `keepExif`. An animation's: animated-variants.ts.
 */
async function resizedOriginal(
  bytes: Buffer,
  probed: ProbedImage,
  format: OutputFormat,
  open: () => Sharp,
  options: VariantOptions,
  width: number
): Promise<EncodedImage> {
  const base = open();
  const pipeline = (options.keepExif ? base.keepMetadata() : base.keepIccProfile()).resize({ width });
  const image = await render(pipeline, format, originalQuality(format, options));
  return { ...image, bits: probed.type === 'bmp' ? 8 : probed.bits };
}

/**
 * The stored original. Upright, metadata-free originals keep their exact bytes (animations too).
 * Rotated ones and BMPs are re-encoded. Personal metadata is removed losslessly where possible
 * (JPEG, PNG), else by re-encoding; `keepExif` keeps it. Kept bytes are still fully decoded by the
 * variant renders, so corrupt data is refused, not stored.
 */
async function storedOriginal(
  bytes: Buffer,
  probed: ProbedImage,
  format: OutputFormat,
  open: () => Sharp,
  options: VariantOptions
): Promise<EncodedImage> {
  const quality = originalQuality(format, options);
  const kept = (buffer: Buffer): EncodedImage => {
    const { width, height, channels, bits } = probed;
    return { buffer, format, width, height, channels, bits };
  };
  const animated = probed.pages > 1;

  // A BMP's bytes here are the PNG it was turned into (RGB, or RGBA for a 32-bit BMP: IHDR's colour type 6).
  if (probed.type === 'bmp') return { ...kept(bytes), channels: bytes[25] === 6 ? 4 : 3 };
  if (probed.orientation > 1 && !animated) {
    const pipeline = options.keepExif ? open().keepMetadata() : open().keepIccProfile();
    const image = await render(pipeline, format, quality);
    return { ...image, bits: probed.bits };
  }
  if (options.keepExif || !probed.hasMetadata) return kept(bytes);

  if (format === 'jpeg' || format === 'png') {
    const cleaned = await stripLossless(bytes);
    if (await isClean(cleaned)) return kept(cleaned);
  }
  const reencoded = sharp(bytes, animated ? everyFrame(probed) : { failOn: 'warning', limitInputPixels: options.maxPixels, ...heifOpen(probed) }).keepIccProfile();
  return { ...(await render(reencoded, format, quality)), width: probed.width, height: probed.height, bits: probed.bits };
}
