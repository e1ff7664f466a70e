/**
 * Renders a transformation of an animated source into a format that carries the animation (GIF,
 * WebP): every frame scaled and cropped as shared/render-plan.ts planned, the frames' delays and the loop
 * count kept, encoded as the upload's animations are (images/animation-encoding.ts). The caller holds
 * an image-work slot (images/image-work.ts) and has checked the animation bounds against the frames
 * at the size they are scaled to (delivery/transforms.ts).
 *
 * Gravity `sm`: libvips' attention strategy reads one picture, so the first frame's crop is every
 * frame's. EXIF orientation is not applied to animations (none are stored with one unless
 * `keepExif` kept it, and libvips turns no animation).
 */
import sharp from 'sharp';
import type { Crop, RenderPlan } from '../../../shared/render-plan';
import type { EncodeSettings, Rendered } from './render';
import { MIME_BY_FORMAT } from '../images/naming';
import { encodeAnimation, everyFrame, type AnimatedFormat } from '../images/animation-encoding';

/** Where a still's render puts a smart crop (render.ts: libvips' attention, on the first frame here), as a scale and a window. */
async function attentionCrop(
  source: Buffer | string,
  crop: Crop,
  size: { width: number; height: number }
): Promise<{ scaledWidth: number; scaledHeight: number; crop: Crop }> {
  const { width, height } = crop;
  const { info } = await sharp(source, { limitInputPixels: size.width * size.height })
    .resize(width, height, { fit: 'cover', position: sharp.strategy.attention })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // `cover` scales the picture until it covers the window; sharp gives the window's corner in it as
  // negative offsets, kept inside here.
  const scale = Math.max(width / size.width, height / size.height);
  const scaledWidth = Math.max(width, Math.round(size.width * scale));
  const scaledHeight = Math.max(height, Math.round(size.height * scale));
  const left = Math.max(0, Math.min(scaledWidth - width, -(info.cropOffsetLeft ?? 0)));
  const top = Math.max(0, Math.min(scaledHeight - height, -(info.cropOffsetTop ?? 0)));
  return { scaledWidth, scaledHeight, crop: { left, top, width, height } };
}

/**
 * `size`: a frame's width and height and the frames, as the source's header gives them (the pixel cap
 * of the decode).
 */
export async function renderAnimation(
  source: Buffer | string,
  plan: RenderPlan,
  settings: EncodeSettings & { format: AnimatedFormat },
  size: { width: number; height: number; frames: number }
): Promise<Rendered> {
  const { scaledWidth, scaledHeight, crop } = plan.crop && plan.smart ? await attentionCrop(source, plan.crop, size) : plan;
  let image = sharp(source, everyFrame(size.width * size.height * size.frames)).resize(scaledWidth, scaledHeight, { fit: 'fill' });
  if (crop) image = image.extract(crop);
  const { format, quality, defaultQuality } = settings;
  const { data, info } = await encodeAnimation(image, format, quality || defaultQuality).toBuffer({ resolveWithObject: true });
  // The frames are stacked in libvips' image: a frame is `pageHeight` high.
  return { buffer: data, format, mime: MIME_BY_FORMAT[format], width: info.width, height: info.pageHeight ?? info.height };
}
