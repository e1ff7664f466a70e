/**
 * Renders a transformation with sharp: one decode (JPEG shrink-on-load when the result is smaller),
 * one resize, the crop, one encode. The caller holds an image-work slot (images/image-work.ts).
 *
 * Encoder settings (docs/performance.md, "Transformations", measured with `npm run bench:delivery`):
 * AVIF is the slow part of every image server; effort 2 keeps a 1000 px render well under half a
 * second on this box's cores, at files within a few percent of effort 4's.
 */
import sharp, { type Sharp } from 'sharp';
import type { RenderPlan } from '../../../shared/render-plan';
import type { OutputFormat } from './transform-options';
import { MIME_BY_FORMAT } from '../images/naming';
// Sources are this service's own stored files, checked when uploaded: HEIF ones may be tiled (image-decoders.ts).
import { HEIF_OPEN } from '../images/decoders/image-decoders';

import { AVIF_EFFORT, AVIF_QUALITY } from '../images/avif-encoding';

export { AVIF_EFFORT, AVIF_QUALITY };

export interface Rendered {
  buffer: Buffer;
  format: OutputFormat;
  mime: string;
  width: number;
  height: number;
}

export interface EncodeSettings {
  format: OutputFormat;
  /** 0: the format's default. */
  quality: number;
  /** The JPEG and WebP quality when the URL sets none (option `jpegQuality`). */
  defaultQuality: number;
}

function encode(image: Sharp, { format, quality, defaultQuality }: EncodeSettings): Sharp {
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality: quality || defaultQuality });
    case 'webp':
      return image.webp({ quality: quality || defaultQuality, effort: 4 });
    case 'avif':
      return image.avif({ quality: quality || AVIF_QUALITY, effort: AVIF_EFFORT });
    case 'png':
      return image.png({ compressionLevel: 6 });
    case 'gif':
      return image.gif();
  }
}

/** The source's size as it is shown (`source`: its bytes, or the path of its file) (EXIF orientation applied), read from its header. */
export async function sourceSize(source: Buffer | string, maxPixels: number): Promise<{ width: number; height: number; format: string }> {
  const { width, height, format, autoOrient } = await sharp(source, { limitInputPixels: maxPixels, ...HEIF_OPEN }).metadata();
  return { width: autoOrient?.width ?? width ?? 0, height: autoOrient?.height ?? height ?? 0, format: format ?? '' };
}

export async function render(source: Buffer | string, plan: RenderPlan, settings: EncodeSettings, maxPixels: number): Promise<Rendered> {
  let image = sharp(source, { limitInputPixels: maxPixels, ...HEIF_OPEN }).rotate();
  if (plan.smart && plan.crop) {
    image = image.resize(plan.crop.width, plan.crop.height, { fit: 'cover', position: sharp.strategy.attention });
  } else {
    // After the resize, extract() crops the scaled image (sharp's post-resize extraction).
    image = image.resize(plan.scaledWidth, plan.scaledHeight, { fit: 'fill' });
    if (plan.crop) image = image.extract(plan.crop);
  }
  const { data, info } = await encode(image, settings).toBuffer({ resolveWithObject: true });
  return { buffer: data, format: settings.format, mime: MIME_BY_FORMAT[settings.format], width: info.width, height: info.height };
}

