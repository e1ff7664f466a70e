/**
 * The geometry of a transformation, with imgproxy's meanings (docs.imgproxy.net, "resizing_type",
 * "gravity"): how far the source is scaled, and which part of the scaled image is kept. Pure
 * arithmetic, so the pixel cap is checked before a pixel is decoded.
 *
 * - fit: within width × height, aspect kept. fill: covers width × height, the rest cropped around
 *   the gravity. fill-down: fill, but a source smaller than the box is cropped to the box's aspect
 *   instead of enlarged. force: exactly width × height, aspect not kept. auto: fill when source and
 *   box have the same orientation, else fit.
 * - A side of 0 follows from the other (fill then acts as fit); both 0: the source's size.
 * - Never enlarged unless `enlarge`: a fill then keeps at most the source's pixels of the box.
 *
 * In shared/ because the admin needs the same answer: a srcset's `w` descriptor is the width the
 * preset's URL renders (contracts/serving.ts), and server/src/delivery/transforms.ts renders with this.
 */

export const RESIZING_TYPES = ['fit', 'fill', 'fill-down', 'force', 'auto'] as const;
export type ResizingType = (typeof RESIZING_TYPES)[number];

/** Compass gravities: imgproxy's abbreviations (`no` north, `soea` south-east, `ce` centre). */
export const COMPASS = ['no', 'so', 'ea', 'we', 'noea', 'nowe', 'soea', 'sowe', 'ce'] as const;
export type Compass = (typeof COMPASS)[number];

export type Gravity =
  | { type: 'compass'; anchor: Compass; xOffset: number; yOffset: number }
  | { type: 'smart' }
  /** Fractions of the width and height, 0 to 1. */
  | { type: 'focal'; x: number; y: number };

/** What a transformation asks of the geometry (server/src/delivery/transform-options.ts reads it from a URL). */
export interface Geometry {
  resizingType: ResizingType;
  /** 0: follows from the other side (or the source's, when both are 0). */
  width: number;
  height: number;
  dpr: number;
  enlarge: boolean;
  /** null: the Media Library focal point, else the centre. */
  gravity: Gravity | null;
}

export interface Crop {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface RenderPlan {
  /** The size the source is scaled to. */
  scaledWidth: number;
  scaledHeight: number;
  /** What is kept of the scaled image; null: all of it. */
  crop: Crop | null;
  /** The crop is placed by libvips' attention strategy (gravity `sm`) rather than `crop`'s offsets. */
  smart: boolean;
  /** The result's size. */
  width: number;
  height: number;
}

/** Where a crop window of `size` sits along a side of `total`, centred on `centre` (a fraction), kept inside. */
function place(total: number, size: number, centre: number): number {
  return Math.max(0, Math.min(total - size, Math.round(centre * total - size / 2)));
}

/** The window's top-left corner for a gravity; `focal` (fractions) is the Media Library's point, if any. */
function corner(gravity: Gravity | null, focal: { x: number; y: number } | null, scaled: { width: number; height: number }, size: { width: number; height: number }, dpr: number) {
  const spareX = scaled.width - size.width;
  const spareY = scaled.height - size.height;
  const clampX = (x: number) => Math.max(0, Math.min(spareX, Math.round(x)));
  const clampY = (y: number) => Math.max(0, Math.min(spareY, Math.round(y)));
  const point = gravity?.type === 'focal' ? gravity : gravity === null ? focal : null;
  if (point) return { left: place(scaled.width, size.width, point.x), top: place(scaled.height, size.height, point.y) };
  if (gravity?.type !== 'compass') return { left: clampX(spareX / 2), top: clampY(spareY / 2) };
  // Offsets (in CSS pixels, so × dpr) move the window away from the edge it is anchored to.
  const { anchor } = gravity;
  const dx = gravity.xOffset * dpr;
  const dy = gravity.yOffset * dpr;
  const left = anchor.endsWith('we') ? dx : anchor.endsWith('ea') ? spareX - dx : spareX / 2 + dx;
  const top = anchor.startsWith('no') ? dy : anchor.startsWith('so') ? spareY - dy : spareY / 2 + dy;
  return { left: clampX(left), top: clampY(top) };
}

export function planRender(source: { width: number; height: number }, spec: Geometry, focal: { x: number; y: number } | null): RenderPlan {
  const { width: sw, height: sh } = source;
  const boxWidth = Math.round(spec.width * spec.dpr);
  const boxHeight = Math.round(spec.height * spec.dpr);
  let type = spec.resizingType;
  if (type === 'auto') type = boxWidth > 0 && boxHeight > 0 && (sw >= sh) !== (boxWidth >= boxHeight) ? 'fit' : 'fill';

  const whole = (width: number, height: number): RenderPlan => ({ scaledWidth: width, scaledHeight: height, crop: null, smart: false, width, height });
  if (boxWidth === 0 && boxHeight === 0) return whole(sw, sh);

  if (type === 'force') {
    let width = boxWidth || Math.round((sw * boxHeight) / sh);
    let height = boxHeight || Math.round((sh * boxWidth) / sw);
    if (!spec.enlarge) {
      width = Math.min(width, sw);
      height = Math.min(height, sh);
    }
    return whole(Math.max(1, width), Math.max(1, height));
  }

  const scaleX = boxWidth / sw;
  const scaleY = boxHeight / sh;
  const oneSide = boxWidth === 0 || boxHeight === 0;
  let scale = type === 'fit' || oneSide ? (oneSide ? Math.max(scaleX, scaleY) : Math.min(scaleX, scaleY)) : Math.max(scaleX, scaleY);
  if (!spec.enlarge && scale > 1) scale = 1;
  const scaledWidth = Math.max(1, Math.round(sw * scale));
  const scaledHeight = Math.max(1, Math.round(sh * scale));
  if (type === 'fit' || oneSide) return whole(scaledWidth, scaledHeight);

  // fill and fill-down: the box, or as much of it as the scaled image holds.
  let width = Math.min(boxWidth, scaledWidth);
  let height = Math.min(boxHeight, scaledHeight);
  if (type === 'fill-down' && (width < boxWidth || height < boxHeight)) {
    // Smaller than the box: the largest window of the box's aspect the image holds.
    const aspect = boxWidth / boxHeight;
    width = Math.min(scaledWidth, Math.round(scaledHeight * aspect));
    height = Math.min(scaledHeight, Math.round(width / aspect));
  }
  width = Math.max(1, width);
  height = Math.max(1, height);
  if (width === scaledWidth && height === scaledHeight) return whole(scaledWidth, scaledHeight);
  const scaled = { width: scaledWidth, height: scaledHeight };
  return {
    scaledWidth,
    scaledHeight,
    crop: { ...corner(spec.gravity, focal, scaled, { width, height }, spec.dpr), width, height },
    smart: spec.gravity?.type === 'smart',
    width,
    height,
  };
}
