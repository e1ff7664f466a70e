/**
 * A transformation request in imgproxy's URL format (contract §13.2, docs/api.md
 * "Transformations"), from its path to its bytes: the URL read, the signature checked (before
 * anything else), the options read, the source found among this service's images, the format
 * chosen, the geometry planned (and the pixel cap checked) before a pixel is decoded; then the
 * kept result, or a render (renditions.ts).
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../../get-service';
import { errors } from '../../http/api-error';
import { parseImgproxyPath } from '../../delivery/imgproxy-url';
import { signatureMatches, signatureSecrets } from '../../delivery/signature';
import { readOptions, formatNamed, type OutputFormat } from '../../delivery/transform-options';
import { negotiateFormat } from '../../delivery/format-negotiation';
import { planRender } from '../../delivery/render-plan';
import type { HotEntry } from '../../delivery/hot-files';

export interface TransformAnswer {
  entry: HotEntry;
  /** The format was chosen from Accept: the answer varies with it. */
  varyAccept: boolean;
}

const FORMAT_BY_MIME: Record<string, OutputFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
};

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** `path`: the request's path after `transformPath`, as sent. Throws ApiError (180, 181, 404, 503). */
  async answer(path: string, accept: string | undefined, address: string): Promise<TransformAnswer> {
    const config = getConfig(strapi);
    const url = parseImgproxyPath(path);
    if (config.transformKey && config.transformSalt) {
      const presetsOnly = url.options.length > 0 && url.options.every(({ name }) => name === 'pr' || name === 'preset');
      if (!presetsOnly && !signatureMatches(signatureSecrets(config.transformKey, config.transformSalt), url.signedPath, url.signature)) {
        throw errors.invalidSignature();
      }
    }
    const { spec } = readOptions(url.options, config.transformPresets);
    const cap = config.maxTransformPixels;
    const tooBig = () => errors.invalidTransformation(`the result would exceed ${cap} pixels`);
    if (spec.width * spec.height * spec.dpr * spec.dpr > cap) throw tooBig();

    const source = await getService(strapi, 'image-sources').bySourceUrl(url.source);
    if (!source) throw errors.imageNotFound();

    const named = spec.format ?? (url.extension ? formatNamed(url.extension) : null);
    const format = named ?? negotiateFormat(accept, FORMAT_BY_MIME[source.file.mime] ?? 'jpeg');
    const focal = source.image.focalPoint;
    const plan = planRender(source.file, spec, focal);
    if (plan.width * plan.height > cap || plan.scaledWidth * plan.scaledHeight > cap) throw tooBig();

    const entry = await getService(strapi, 'renditions').get(
      { source, plan, format, quality: spec.quality, replan: (size) => planRender(size, spec, focal) },
      address
    );
    return { entry, varyAccept: named === null };
  },
});
