/**
 * A transformation request in imgproxy's URL format (docs/api.md
 * "Transformations"), from its path to its bytes: the URL read, the signature checked (before
 * anything else), the options read, the source found among this service's images, the format
 * chosen, the geometry planned (and the pixel cap checked) before a pixel is decoded; then the
 * kept result, or a render (renditions.ts).
 *
 * A URL nobody signed (presets alone, or any URL when no key is set) cannot ask for GIF: its encoder
 * (palette quantisation) costs several times AVIF's, 3.6 s for a 1920 px result on one core against
 * 1 s, and tens of seconds under load. Named (`f:gif`, `@gif`, `.gif`, a preset's `f:gif`), it is a
 * 400/180; a still GIF source whose format is negotiated gets PNG instead. An animated source is never
 * given a still format: a client that takes WebP gets an animated WebP, any other an animation of the
 * source's own format, a GIF included. That GIF is bounded as any animated result is (checkAnimation):
 * its frames are mapped to the source's own palette at the lowest effort (images/animation-encoding.ts),
 * 7.5 s of CPU for 20 MP of photographic frames, the most the bounds allow (docs/performance.md,
 * "Animations").
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../get-service';
import { errors } from '../http/api-error';
import { parseImgproxyPath } from './imgproxy-url';
import { signatureMatches, signatureSecrets } from './signature';
import { readOptions, formatNamed, type OutputFormat } from './transform-options';
import { acceptClass, negotiateFormat } from './format-negotiation';
import { LRUCache } from 'lru-cache';
import { renditionKey } from './renditions';
import type { SourceImage } from './image-sources';
import { planRender, type RenderPlan } from '../../../shared/render-plan';
import { isAnimatedFormat } from '../images/animation-encoding';
import { boundPassed } from '../images/animation-bounds';
import type { ImageApiConfig } from '../config';
import type { ImageCaching, ImmutableBytes } from './immutable-answer';

export interface TransformAnswer {
  /** The bytes, or a stream of the kept file (a result too large for the hot bytes). */
  entry: ImmutableBytes;
  /** The format was chosen from Accept: the answer varies with it. */
  varyAccept: boolean;
  /** The source image: its cache tags and expiry. */
  of: ImageCaching;
}

/** What a transformation URL came to, so the fast path can answer its repeats (recall()). */
interface Recalled {
  key: string;
  /** The source as it was looked up: a repeat is answered only while the lookup is the same one. */
  image: SourceImage;
  varyAccept: boolean;
}

/** Transformation URLs remembered. */
const URLS_REMEMBERED = 10_000;

/**
 * An animated result is held to the upload's animation bounds (images/animation-bounds.ts): its frames
 * read, and scaled to the plan's size, at most `maxAnimationPixels` in all (an enlargement could ask
 * for hundreds of times more), so that no render costs more than an upload's work on every frame.
 */
function checkAnimation(config: ImageApiConfig, source: { width: number; height: number }, plan: RenderPlan, frames: number): void {
  const read = boundPassed({ width: source.width, height: source.height, pages: frames }, config);
  const scaled = boundPassed({ width: plan.scaledWidth, height: plan.scaledHeight, pages: frames }, config);
  if (read === 'frames') throw errors.invalidTransformation(`the animation has more than ${config.maxAnimationFrames} frames`);
  if (read || scaled) throw errors.invalidTransformation(`the animated result would exceed ${config.maxAnimationPixels} pixels in all its frames`);
}

/** Formats an unsigned URL may not ask for (see the module comment). */
const SIGNED_ONLY_FORMATS: ReadonlySet<OutputFormat> = new Set(['gif']);

const FORMAT_BY_MIME = new Map<string, OutputFormat>([
  ['image/jpeg', 'jpeg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
  ['image/gif', 'gif'],
  ['image/avif', 'avif'],
]);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Not subscribed to image changes (storage/image-changes.ts): an entry is answered only while its
  // image's lookup is the very one it was made with, and a change drops that lookup
  // (delivery/image-sources.ts), as its TTL does for a change made on another instance.
  const recalled = new LRUCache<string, Recalled>({ max: URLS_REMEMBERED });
  const recallKey = (path: string, accept: string | undefined) => `${path}\n${acceptClass(accept)}`;

  return {
    /**
     * The kept result a URL came to last time, while its source's lookup is still the same (a moved
     * focal point or a deletion makes a new one: image-sources.ts); else undefined.
     */
    recall(path: string, accept: string | undefined): { key: string; varyAccept: boolean; of: ImageCaching } | undefined {
      const found = recalled.get(recallKey(path, accept));
      if (!found) return undefined;
      const sources = getService(strapi, 'image-sources');
      return sources.peek(found.image.name) === found.image && sources.isLive(found.image) ? { ...found, of: found.image } : undefined;
    },

    /**
     * `path`: the request's path after `transformPath`, as sent. Throws ApiError (180, 181, 404, 429,
     * 503). `skipKept`: the kept file could not be read (renditions.ts): render it.
     */
    async answer(path: string, accept: string | undefined, address: string, { skipKept = false }: { skipKept?: boolean } = {}): Promise<TransformAnswer> {
      const config = getConfig(strapi);
      const url = parseImgproxyPath(path);
      const presetsOnly = url.options.length > 0 && url.options.every(({ name }) => name === 'pr' || name === 'preset');
      const signing = Boolean(config.transformKey && config.transformSalt);
      if (signing && !presetsOnly && !signatureMatches(signatureSecrets(config.transformKey!, config.transformSalt!), url.signedPath, url.signature)) {
        throw errors.invalidSignature();
      }
      // Asked for by the site (its secret signed it), or by anyone.
      const signed = signing && !presetsOnly;
      // Kept: what the site's own URLs ask for (signed) and the presets. Unsigned, anyone could ask for
      // sizes without end: those are rendered each time instead, under the render gate's limits.
      const keep = signing || presetsOnly;
      const { spec } = readOptions(url.options, config.transformPresets);
      const cap = config.maxTransformPixels;
      const tooBig = () => errors.invalidTransformation(`the result would exceed ${cap} pixels`);
      if (spec.width * spec.height * spec.dpr * spec.dpr > cap) throw tooBig();
      const named = spec.format ?? (url.extension ? formatNamed(url.extension) : null);
      if (named && !signed && SIGNED_ONLY_FORMATS.has(named)) throw errors.invalidTransformation(`${named.toUpperCase()} output needs a signed URL`);

      const source = await getService(strapi, 'image-sources').bySourceUrl(url.source);
      if (!source) throw errors.imageNotFound();

      const own = FORMAT_BY_MIME.get(source.file.mime) ?? 'jpeg';
      // An animated source (GIF, WebP; its original or a variant) stays animated where the format can carry it.
      const sourceFrames = named === null || isAnimatedFormat(named) ? await getService(strapi, 'source-frames').of(source.file) : 1;
      const stillStandIn = !signed && sourceFrames === 1 && SIGNED_ONLY_FORMATS.has(own) ? 'png' : own;
      const format = named ?? negotiateFormat(accept, stillStandIn, sourceFrames > 1);
      const frames = isAnimatedFormat(format) ? sourceFrames : 1;
      const focal = source.image.focalPoint;
      const plan = planRender(source.file, spec, focal);
      if (plan.width * plan.height > cap || plan.scaledWidth * plan.scaledHeight > cap) throw tooBig();
      if (frames > 1) checkAnimation(config, source.file, plan, frames);

      const replan = (size: { width: number; height: number }) => planRender(size, spec, focal);
      const request = { source, plan, format, quality: spec.quality, frames, replan };
      const entry = await getService(strapi, 'renditions').get(request, address, { keep, skipKept });
      recalled.set(recallKey(path, accept), { key: renditionKey(request), image: source.image, varyAccept: named === null });
      return { entry, varyAccept: named === null, of: source.image };
    },
  };
};
