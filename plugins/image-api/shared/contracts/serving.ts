/**
 * Ready-made transformation URLs for the admin (the Content Manager's image panel, the Image API
 * page's cards): what `GET /image-api/serving` answers, and the preset URLs and `<img srcset>` made
 * from it. Presets need no signature (docs/api.md, "Transformations"), so nothing secret reaches the browser.
 */
import { planRender, type Geometry } from '../render-plan';

export interface ServingPreset {
  name: string;
  /** imgproxy options, as configured (`rs:fit:245:156`, `w:500`). */
  definition: string;
  /** The width it asks for; null when it names none. */
  width: number | null;
  /** What it asks of the geometry, as the server reads its options (delivery/transform-options.ts); null when unreadable. */
  geometry: Geometry | null;
}

export interface ServingAnswer {
  /** `{public URL}{transformPath}`; null when transformations are off. */
  transformBase: string | null;
  presets: ServingPreset[];
}

/** The width a preset's options ask for (`w:500`, `width:500`, `rs:fill:500:300`, `s:500:300`). */
export function presetWidth(definition: string): number | null {
  let width: number | null = null;
  for (const segment of definition.split('/')) {
    const [name, ...args] = segment.split(':');
    const value = name === 'w' || name === 'width' ? args[0] : name === 'rs' || name === 'resize' ? args[1] : name === 's' || name === 'size' ? args[0] : undefined;
    if (value !== undefined && /^\d+$/.test(value) && Number(value) > 0) width = Number(value);
  }
  return width;
}

/** A preset's URL for an image's direct URL. */
export const presetUrl = (transformBase: string, preset: string, imageUrl: string) => `${transformBase}/_/pr:${preset}/plain/${imageUrl}`;

/**
 * The width a preset's URL renders for an image of this size: what delivery renders (the same
 * planRender), so `rs:fit:245:156` is 208 wide for a 4:3 image, not 245. null: unknown.
 */
export function renderedWidth(preset: ServingPreset, image: { width: number; height: number }): number | null {
  return preset.geometry ? planRender(image, preset.geometry, null).width : null;
}

/**
 * An `<img>` with a `srcset` of the presets that render narrower than the image (never enlarged),
 * each described by the width its URL renders, and the image itself at its own width; null when
 * transformations are off. Of presets that render the same width, the first is listed.
 */
export function srcsetSnippet(serving: ServingAnswer, image: { url: string; width: number; height: number; alt: string }): string | null {
  if (!serving.transformBase) return null;
  const base = serving.transformBase;
  const byWidth = new Map<number, ServingPreset>();
  for (const preset of serving.presets) {
    const width = renderedWidth(preset, image);
    if (width !== null && width < image.width && !byWidth.has(width)) byWidth.set(width, preset);
  }
  const sized = [...byWidth.entries()].sort(([a], [b]) => a - b);
  const candidates = [...sized.map(([width, preset]) => `${presetUrl(base, preset.name, image.url)} ${width}w`), `${image.url} ${image.width}w`];
  const fallback = sized.length > 0 ? presetUrl(base, sized[Math.floor(sized.length / 2)][1].name, image.url) : image.url;
  const alt = image.alt.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<img src="${fallback}"\n     srcset="${candidates.join(',\n             ')}"\n     sizes="100vw" alt="${alt}">`;
}
