/**
 * The image work: the stored original (upright, BMP as PNG, animations untouched) and its two
 * variants, `.th` (square centre crop, scaled up when small) and `.md` (fixed width, never scaled up).
 */
import pLimit from 'p-limit';
import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { errors, isApiError } from '../http/api-error';
import type { ProbedImage } from './image-probe';
import { isClean, stripLossless } from './image-metadata';
import { settleAll } from './settle-all';
import { bmpAsPng } from './bmp-renditions';

export type OutputFormat = 'jpeg' | 'png' | 'gif' | 'webp';

export interface EncodedImage {
  buffer: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
  channels: number;
  bits: number;
}

export interface Renditions {
  original: EncodedImage;
  thumb: EncodedImage;
  medium: EncodedImage;
}

export interface VariantOptions {
  thumbSize: number;
  mediumWidth: number;
  jpegQuality: number;
  maxPixels: number;
  /** Keep EXIF/XMP/IPTC in stored originals (default: removed). */
  keepExif: boolean;
}

type SharpInput = { input: Buffer; options: SharpOptions };

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

const oneBmpAtATime = pLimit(1);

/** The renditions of the image whose bytes sharp reads in `input` (`bytes` as sent, or a BMP's PNG). */
async function renditionsOf(input: Buffer, bytes: Buffer, probed: ProbedImage, options: VariantOptions, width: number | null): Promise<Renditions> {
  const isBmp = probed.type === 'bmp';
  // A BMP has no orientation to apply (and checking would make libvips hold the whole image).
  const source: SharpInput = { input, options: { autoOrient: !isBmp, failOn: 'warning', limitInputPixels: options.maxPixels } };
  const format: OutputFormat = isBmp ? 'png' : (probed.type as OutputFormat);
  const open = () => sharp(source.input, source.options);

  const resizeTo = width !== null && width < probed.width ? width : null;

  try {
    const [original, { thumb, medium }] = await settleAll<[EncodedImage, { thumb: EncodedImage; medium: EncodedImage }]>([
      resizeTo === null ? storedOriginal(bytes, probed, format, open, options) : resizedOriginal(bytes, probed, format, open, options, resizeTo),
      renderVariants(open, format, resizeTo === null ? options : { ...options, mediumWidth: Math.min(options.mediumWidth, resizeTo) }),
    ]);
    return { original, thumb, medium };
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
async function renderVariants(open: () => Sharp, format: OutputFormat, options: VariantOptions) {
  const { data, info } = await open()
    .resize({ width: options.mediumWidth, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = () => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  const crop = { fit: 'cover', position: 'centre' } as const;
  const smallMedium = Math.min(info.width, info.height) < options.thumbSize && info.width === options.mediumWidth;
  const [medium, thumb] = await settleAll<[EncodedImage, EncodedImage]>([
    render(pixels(), format, options.jpegQuality),
    render((smallMedium ? open() : pixels()).resize(options.thumbSize, options.thumbSize, crop), format, options.jpegQuality),
  ]);
  return { medium, thumb };
}

/**
 * The stored original resized to `width` (narrower than the image): upright, re-encoded, every frame
 * of an animation kept; metadata dropped unless `keepExif`.
 */
async function resizedOriginal(
  bytes: Buffer,
  probed: ProbedImage,
  format: OutputFormat,
  open: () => Sharp,
  options: VariantOptions,
  width: number
): Promise<EncodedImage> {
  const animated = probed.pages > 1;
  const base = animated ? sharp(bytes, { animated, failOn: 'warning', limitInputPixels: options.maxPixels }) : open();
  const pipeline = (options.keepExif ? base.keepMetadata() : base.keepIccProfile()).resize({ width });
  const image = await render(pipeline, format, Math.max(options.jpegQuality, 92));
  // An animation's frames are stacked in the output: a frame is its height divided by the frames.
  return { ...image, height: animated ? image.height / probed.pages : image.height, bits: probed.type === 'bmp' ? 8 : probed.bits };
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
  const quality = Math.max(options.jpegQuality, 92);
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
  const reencoded = sharp(bytes, { animated, failOn: 'warning', limitInputPixels: options.maxPixels }).keepIccProfile();
  return { ...(await render(reencoded, format, quality)), width: probed.width, height: probed.height, bits: probed.bits };
}
