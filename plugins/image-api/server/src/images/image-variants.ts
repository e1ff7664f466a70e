/**
 * The image work: the stored original (upright, BMP as PNG, HEIC as JPEG, animations untouched), its
 * two variants, `.th` (square centre crop, scaled up when small) and `.md` (fixed width, never scaled
 * up), and its placeholder (placeholder.ts), all from one decode. An animated GIF or WebP keeps every
 * frame in all three files (animated-variants.ts).
 */
import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { errors, isApiError } from '../http/api-error';
import type { ProbedImage } from './image-probe';
import { stripMetadata } from './metadata/strip-metadata';
import { settleAll } from './settle-all';
import { concurrencyLimit } from './concurrency-limit';
import { bmpAsPng } from './decoders/bmp-variants';
import { heicVariants } from './decoders/heic-variants';
import type { DecodedPixels } from './decoders/heic-job';
import { HEIF_OPEN } from './decoders/image-decoders';
import { withExifBlock } from './exif-block';
import { fitsInJpeg, withIccBlock } from './icc-block';
import { AVIF_EFFORT, AVIF_QUALITY } from './avif-encoding';
import { placeholderOf, type Placeholder } from './placeholder';
import { layoutOf, type FileLayout } from './file-layout';
import { everyFrame as framesInput, isAnimatedFormat } from './animation-encoding';
import { animatedVariants, apngFrames, resizedAnimation } from './animated-variants';
import { SCREENING_PIXELS_EDGE, type EncodedImage, type OutputFormat, type VariantSet, type VariantOptions } from './variant-set';

export type { EncodedImage, OutputFormat, VariantSet, VariantOptions } from './variant-set';

/**
 * AVIF encoding of stored AVIF images (their variants, and originals re-encoded): the transformations'
 * settings (avif-encoding.ts: effort 2, quality 55, about JPEG at 85), which keep a 12 MP upload's
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
  return rendered(encode(pipeline, format, quality), format);
}

/** The file an encoding pipeline writes (`bits` and `channels` are the file's: buildVariants reads them). */
async function rendered(encoding: Sharp, format: OutputFormat): Promise<EncodedImage> {
  const { data, info } = await encoding.toBuffer({ resolveWithObject: true });
  return { buffer: data, format, width: info.width, height: info.height, channels: info.channels, bits: 8 };
}

/**
 * The stored original and its variants. `width` (an upload's parameter): the original is resized to
 * it first when it is wider (aspect kept, never enlarged, every frame of an animation), and the
 * variants follow from it (the medium is never wider than the original). Each file's `bits` and
 * `channels` are read from its bytes, whichever way it was made.
 */
export async function buildVariants(bytes: Buffer, probed: ProbedImage, options: VariantOptions, width: number | null = null): Promise<VariantSet> {
  const { original, medium, thumb, placeholder, pixels } = await encodeVariants(bytes, probed, options, width);
  return { original: asStored(original), medium: asStored(medium), thumb: asStored(thumb), placeholder, ...(pixels ? { pixels } : {}) };
}

/** `bits` and `channels` as the file holds them (file-layout.ts; an AVIF's as libvips read or wrote it). */
function asStored(image: EncodedImage): EncodedImage {
  const layout = layoutOf(image.buffer, image.format);
  return layout ? { ...image, bits: layout.bits, channels: layout.channels } : image;
}

function encodeVariants(bytes: Buffer, probed: ProbedImage, options: VariantOptions, width: number | null): Promise<VariantSet> {
  // Decoded and rendered in a worker thread, one HEIC at a time per process (decoders/heic-variants.ts).
  // (Its medium's pixels stay in the worker: the screening decodes the medium again.)
  if (probed.type === 'heic') return heicVariants(bytes, { ...options, screeningPixels: false }, width);
  // libvips' AV1 decoder holds about 200 MB for a 12 MP AVIF (two at once took the bench's server to
  // 940 MB): one AVIF at a time per process, as HEICs and BMPs.
  if (probed.type === 'avif') return oneAvifAtATime(() => variantsOf(bytes, bytes, probed, options, width));
  // Work on every frame (the variants, `width`) takes seconds, and libwebp's animation
  // encoder holds about 85 MB for an animation at the bounds (animation-bounds.ts): one animation at a time.
  if (probed.pages > 1) return oneAnimationAtATime(() => variantsOf(bytes, bytes, probed, options, width));
  if (probed.type !== 'bmp') return variantsOf(bytes, bytes, probed, options, width);
  // sharp has no BMP loader: a BMP is turned into a PNG first, off the event loop (bmp-variants.ts).
  // A 1-bit BMP packs 32 pixels a byte, so under the byte limit it may be 80 MP, where other formats
  // are at most a few: one at a time, its PNG and variants stay within the memory figures.
  // The worker's PNG is the stored original as it is: re-encoding 80 MP would hold libvips to
  // 100 MB more, for a few percent of file size.
  return oneBmpAtATime(async () => {
    const png = await bmpAsPng(bytes);
    return variantsOf(png, png, probed, options, width);
  });
}

/**
 * Nothing stored is larger than what may be sent (`maxBytes`): a file the image work made bigger (an
 * animation resized to `width`, whose frames' colours no longer compress as they did; an AVIF
 * re-encoded to remove its metadata, an original turned upright; a HEIC as a JPEG) is refused (413/313) rather
 * than stored. Checked on every file, so it holds for variants that keep an animation too.
 */
export function checkStoredBytes({ original, medium, thumb }: VariantSet, maxBytes: number): void {
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

/** The variants of the image whose bytes sharp reads in `input` (`bytes` as sent, or a BMP's PNG). */
async function variantsOf(input: Buffer, bytes: Buffer, probed: ProbedImage, options: VariantOptions, width: number | null): Promise<VariantSet> {
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
    const stored = resizeTo === null ? storedOriginal(bytes, probed, format, open, options) : resizedOriginal(bytes, probed, format, open, options, resizeTo);
    const [original, variants] = await settleAll<[EncodedImage, Variants]>([
      stored,
      renderVariants(open, format, narrowed(options, resizeTo), { layout: layoutOf(input, format), stored }),
    ]);
    return { original, ...variants };
  } catch (error) {
    if (isApiError(error)) throw error;
    throw errors.invalidImage();
  }
}

type Variants = Pick<VariantSet, 'thumb' | 'medium' | 'placeholder' | 'pixels'>;

/** The medium is never wider than an original resized to `width`. */
const narrowed = (options: VariantOptions, width: number | null) =>
  width === null ? options : { ...options, mediumWidth: Math.min(options.mediumWidth, width) };

/**
 * The variants of decoded pixels (a HEIC's, upright: decoders/heic-worker.ts runs this beside its
 * decoder): the stored original encoded as a JPEG (on white where it has transparency), and the
 * variants decoded from that JPEG (shrunk on load: a 12 MP photo's variants cost what they cost from
 * its pixels). Pixels in another colour space than sRGB (a phone's Display P3, `decoded.icc`) keep
 * their numbers in the original, tagged with the profile, as a P3 JPEG is; the variants' decode
 * converts them to sRGB. The file's EXIF goes into the JPEG only with `keepExif`, as a JPEG's would
 * stay.
 */
export async function pixelVariants(decoded: DecodedPixels, bytes: Buffer, options: VariantOptions, width: number | null): Promise<VariantSet> {
  try {
    const raw = { width: decoded.width, height: decoded.height, channels: decoded.channels };
    const pixels = sharp(decoded.pixels, { raw });
    const opaque = decoded.channels === 4 ? pixels.flatten({ background: '#ffffff' }) : pixels;
    const resizeTo = width !== null && width < decoded.width ? width : null;
    const encoded = await render(resizeTo === null ? opaque : opaque.resize({ width: resizeTo }), 'jpeg', originalQuality('jpeg', options));
    const tagged = decoded.icc && fitsInJpeg(decoded.icc) ? { ...encoded, buffer: withIccBlock(encoded.buffer, decoded.icc) } : encoded;
    const source = { layout: layoutOf(tagged.buffer, 'jpeg'), stored: Promise.resolve(tagged) };
    const variants = await renderVariants(() => sharp(tagged.buffer, { failOn: 'warning' }), 'jpeg', narrowed(options, resizeTo), source);
    const exif = options.keepExif ? (await sharp(bytes, HEIF_OPEN).metadata()).exif : undefined;
    return { original: exif ? { ...tagged, buffer: withExifBlock(tagged.buffer, exif) } : tagged, ...variants };
  } catch (error) {
    if (isApiError(error)) throw error;
    throw errors.invalidImage();
  }
}

/** What variants are made from: what the source file holds, and the stored original they may not outgrow. */
interface VariantSource {
  layout: FileLayout | null;
  stored: Promise<EncodedImage>;
}

/**
 * `.md` and `.th` from one decode: the image is decoded once, shrunk on load, to the medium's size;
 * the medium is encoded from those pixels and the thumb cropped from them. Only when the medium is
 * too small for a sharp 160×160 crop (a panorama, say) is the thumb made from the original again.
 * Each is encoded for the web from what its source holds (webEncoders) and is never bigger in bytes
 * than a stored original with more pixels (withinSource).
 */
async function renderVariants(open: () => Sharp, format: OutputFormat, options: VariantOptions, source: VariantSource): Promise<Variants> {
  const { data, info } = await open()
    .resize({ width: options.mediumWidth, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = () => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  const crop = { fit: 'cover', position: 'centre' } as const;
  const smallMedium = Math.min(info.width, info.height) < options.thumbSize && info.width === options.mediumWidth;
  const quality = variantQuality(format, options);
  // The same geometry, nearest neighbour from the full image: only the source's own colours (withinSource).
  const nearest = { kernel: 'nearest', fastShrinkOnLoad: false } as const;
  const medium = { pixels, nearest: () => open().resize({ width: options.mediumWidth, withoutEnlargement: true, ...nearest }) };
  const thumb = {
    pixels: () => (smallMedium ? open() : pixels()).resize(options.thumbSize, options.thumbSize, crop),
    nearest: () => open().resize(options.thumbSize, options.thumbSize, { ...crop, ...nearest }),
  };
  const [mediumImage, thumbImage, placeholder] = await settleAll<[EncodedImage, EncodedImage, Placeholder]>([
    encodeVariant(medium, format, quality, source),
    encodeVariant(thumb, format, quality, source),
    placeholderOf({ data, width: info.width, height: info.height, channels: info.channels }),
  ]);
  // The decoded medium, for the screening when it asked (it would decode the encoded one again), if
  // small: the pixels outlive the image-work slot.
  const small = info.width <= SCREENING_PIXELS_EDGE && info.height <= SCREENING_PIXELS_EDGE;
  const decoded = options.screeningPixels && small ? { pixels: { data, width: info.width, height: info.height, channels: info.channels } } : {};
  return { medium: mediumImage, thumb: thumbImage, placeholder, ...decoded };
}

type Encoder = (pipeline: Sharp) => Sharp;

/** Grey sources' variants stay grey where the format has grey (PNG, JPEG): libvips' raw pixels are sRGB. */
const toneOf = (format: OutputFormat, layout: FileLayout | null) =>
  layout !== null && layout.channels <= 2 && (format === 'png' || format === 'jpeg')
    ? (pipeline: Sharp) => pipeline.toColourspace('b-w')
    : (pipeline: Sharp) => pipeline;

/** libwebp's near-lossless preprocessing level (0 to 100, 100 lossless): 60, its own example's. */
const NEAR_LOSSLESS = 60;

/**
 * How a variant is encoded for the web, from what its source holds; of several, the smallest is kept.
 * A palette PNG's variants are palette PNGs (libimagequant); a grey PNG or JPEG's stay grey (with its
 * alpha: 2 channels, not 4); 16-bit sources' are 8 bits a channel (libvips' raw pixels are); a
 * lossless WebP's are lossy or near-lossless, whichever is smaller; truecolour PNGs once, without row
 * filters (libvips' default: adaptive filters take a photo's to a third of the bytes but cost 25 ms
 * more a variant at 500 px, and trying both doubled a PNG upload's CPU; withinSource's fallbacks use
 * them when the plain file would outgrow its source).
 */
function webEncoders(format: OutputFormat, quality: number, layout: FileLayout | null): Encoder[] {
  const tone = toneOf(format, layout);
  switch (format) {
    case 'png':
      if (layout?.palette) return [(p) => p.png({ palette: true })];
      return [(p) => tone(p).png()];
    case 'webp':
      return layout?.lossless ? [(p) => p.webp({ quality }), (p) => p.webp({ nearLossless: true, quality: NEAR_LOSSLESS })] : [(p) => p.webp({ quality })];
    default:
      return [(p) => encode(tone(p), format, quality)];
  }
}

/**
 * What is tried, in order, when a variant with fewer pixels than the stored original came out bigger
 * (a flat graphic, whose resized edges bring colours of their own): the lossless formats from the
 * nearest-neighbour pixels, which hold only the source's colours and compress as it does (a palette
 * without dithering is exact when they fit in one); the lossy ones at lower qualities.
 */
function fallbackEncoders(format: OutputFormat, quality: number, layout: FileLayout | null): Array<{ encoder: Encoder; nearest: boolean }> {
  const tone = toneOf(format, layout);
  switch (format) {
    case 'png': {
      // Grey first where the source is grey (a palette would hold it as RGB).
      const palette = { encoder: (p: Sharp) => p.png({ palette: true, dither: 0 }), nearest: true };
      const truecolour = { encoder: (p: Sharp) => tone(p).png({ adaptiveFiltering: true }), nearest: true };
      return layout !== null && layout.channels <= 2 ? [truecolour, palette] : [palette, truecolour];
    }
    case 'webp':
      return [{ encoder: (p) => p.webp({ lossless: true }), nearest: true }];
    case 'gif':
      return [{ encoder: (p) => p.gif({ dither: 0 }), nearest: true }];
    default:
      return [0.75, 0.5, 0.25].map((step) => ({ encoder: (p: Sharp) => encode(tone(p), format, Math.max(1, Math.round(quality * step))), nearest: false }));
  }
}

const smallest = (images: EncodedImage[]) => images.reduce((best, image) => (image.buffer.length < best.buffer.length ? image : best));

/**
 * A variant encoded for the web (webEncoders), kept within its source: one with fewer pixels than
 * the stored original is never bigger in bytes than it, the fallbacks tried in turn until one fits
 * (the smallest kept if none does).
 */
async function encodeVariant(
  variant: { pixels: () => Sharp; nearest: () => Sharp },
  format: OutputFormat,
  quality: number,
  source: VariantSource
): Promise<EncodedImage> {
  let best = smallest(await Promise.all(webEncoders(format, quality, source.layout).map((encoder) => rendered(encoder(variant.pixels()), format))));
  const stored = await source.stored;
  const withinSource = (image: EncodedImage) => image.width * image.height >= stored.width * stored.height || image.buffer.length <= stored.buffer.length;
  for (const { encoder, nearest } of fallbackEncoders(format, quality, source.layout)) {
    if (withinSource(best)) break;
    best = smallest([best, await rendered(encoder(nearest ? variant.nearest() : variant.pixels()), format)]);
  }
  return best;
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
 * Rotated ones and BMPs are re-encoded. Metadata is removed by rewriting the container without it
 * (metadata/: JPEG, PNG, GIF and WebP keep their coded pixels byte for byte); an AVIF with metadata is
 * re-encoded; `keepExif` keeps it all. Kept bytes are still fully decoded by the variant renders, so
 * corrupt data is refused, not stored.
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
    // libvips writes no EXIF or XMP without keepMetadata; the walk drops anything else it carried over.
    const buffer = options.keepExif ? image.buffer : (stripMetadata(image.buffer, format)?.bytes ?? image.buffer);
    return { ...image, buffer, bits: probed.bits };
  }
  // The probe walked the container already: a file without metadata costs no second pass.
  if (options.keepExif || !probed.hasMetadata) return kept(bytes);
  const stripped = stripMetadata(bytes, probed.type);
  if (stripped) return kept(stripped.bytes);

  // An AVIF with EXIF or XMP items (its boxes are not rewritten): re-encoded, with its ICC profile only.
  const reencoded = sharp(bytes, animated ? everyFrame(probed) : { failOn: 'warning', limitInputPixels: options.maxPixels, ...heifOpen(probed) }).keepIccProfile();
  return { ...(await render(reencoded, format, quality)), width: probed.width, height: probed.height, bits: probed.bits };
}
