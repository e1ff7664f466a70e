/**
 * AVIF's encoder settings, one pair for the whole plugin: transformations (delivery/render.ts) and
 * stored AVIF uploads' variants (image-variants.ts) use them. AVIF is the slow part of every image
 * server: effort 2 keeps a 1000 px render well under half a second (docs/performance.md).
 */

/** AVIF encoder effort (0 fastest to 9). */
export const AVIF_EFFORT = 2;
/** AVIF quality when the URL sets none: about the visual quality of JPEG at 80-85. */
export const AVIF_QUALITY = 55;
