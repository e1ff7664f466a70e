/**
 * How every frame of an animated GIF or WebP is read and written again, by the upload's work
 * (animated-variants.ts) and by transformations (delivery/render.ts) alike. sharp keeps the frames'
 * delays and the loop count from the source (its `delay` and `loop` metadata) through a resize or a
 * crop, and writes them again.
 *
 * The encoders' effort (docs/performance.md, "Animations"; `npm run bench:animations`): a GIF's colours
 * are quantized frame by frame, and at libvips' default effort (7) that is nearly all of the cost: 81 s
 * of CPU for 500 photographic frames of 200×200 (20 MP, the largest animation the bounds allow)
 * resized by one pixel, 7.5 s at effort 1, for files about a tenth larger. Synthetic frames of few
 * colours cost a tenth of that either way. libwebp's animation encoder at effort 2 takes 3.2 s for
 * the same frames where effort 4 (the stills' setting) takes 4.7 s, for files 3 % larger.
 */
import type { Sharp, SharpOptions } from 'sharp';

export type AnimatedFormat = 'gif' | 'webp';

/** The formats that carry an animation (sharp writes no APNG, and reads only an APNG's first frame). */
export const isAnimatedFormat = (format: string): format is AnimatedFormat => format === 'gif' || format === 'webp';

/** libvips' GIF quantization effort (1 fastest to 10): see the module comment. */
export const ANIMATED_GIF_EFFORT = 1;
/** libwebp's effort (0 fastest to 6) for animations: see the module comment. */
export const ANIMATED_WEBP_EFFORT = 2;

/**
 * sharp's options to read every frame: the pixel cap (`limitInputPixels`, a net behind the checks
 * that come first) is the frames' pixels, which the bounds have already allowed.
 */
export const everyFrame = (framesPixels: number): SharpOptions => ({ animated: true, failOn: 'warning', limitInputPixels: framesPixels });

/**
 * Every frame written as an animation of `format`. A GIF reuses the palette its source carries (sharp's
 * default): each frame is then mapped to it rather than quantized anew.
 */
export function encodeAnimation(pipeline: Sharp, format: AnimatedFormat, quality: number): Sharp {
  return format === 'gif' ? pipeline.gif({ effort: ANIMATED_GIF_EFFORT }) : pipeline.webp({ quality, effort: ANIMATED_WEBP_EFFORT });
}
