/**
 * How every frame of an animated GIF or WebP is read and written again, by the upload's work
 * (animated-variants.ts) and by transformations (delivery/animated-render.ts) alike. sharp keeps the frames'
 * delays and the loop count from the source (its `delay` and `loop` metadata) through a resize or a
 * crop, and writes them again.
 *
 * The encoders' settings (docs/performance.md, "Animations"; measured on one libvips thread): a GIF's
 * colours are quantized frame by frame, unless its source carries one palette for all frames (libvips
 * then maps every frame to it). 500 photographic frames of 200×200 (20 MP, the largest animation the
 * bounds allow), resized by one pixel and written as a GIF, took 81 to 89 s of CPU at libvips' default
 * effort (7) where each frame's palette was made anew (a WebP source, or a GIF of a palette per frame),
 * 13 to 14 s at effort 1; mapped to a GIF's one palette, 6 s. Without error diffusion (dither 0) the
 * mapping takes half the time on frames of few colours (2.4 s against 4.5 s for the bounds' synthetic
 * GIF) and the files are a fifth smaller; diffused error would also make the noise crawl from one frame
 * to the next. libwebp's animation encoder at effort 2 takes 3.2 s for the photographic frames where
 * effort 4 (the stills' setting) takes 4.7 s, for files 3 % larger.
 */
import type { Sharp, SharpOptions } from 'sharp';

export type AnimatedFormat = 'gif' | 'webp';

/** The formats that carry an animation (sharp writes no APNG, and reads only an APNG's first frame). */
export const isAnimatedFormat = (format: string): format is AnimatedFormat => format === 'gif' || format === 'webp';

/** libvips' GIF quantization effort (1 fastest to 10) and error diffusion (0 none to 1): see the module comment. */
export const ANIMATED_GIF = { effort: 1, dither: 0 } as const;
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
  return format === 'gif' ? pipeline.gif({ ...ANIMATED_GIF }) : pipeline.webp({ quality, effort: ANIMATED_WEBP_EFFORT });
}
