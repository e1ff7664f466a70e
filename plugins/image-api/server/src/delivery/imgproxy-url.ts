/**
 * Reads a transformation URL in imgproxy's format (docs/api.md, "Transformations"; imgproxy's own
 * docs, "Generating the URL"): `/{signature}/{option}/.../{source}`, the part after
 * `transformPath`. Segments with a `:` are options until the source: `plain/{url}[@{extension}]`, or
 * base64url of the URL (which may be split by `/`) with an optional `.{extension}`.
 * Only the shape is read here; what the options mean is transform-options.ts's.
 */
import { errors } from '../http/api-error';

const transformError = errors.invalidTransformation;

export interface RawOption {
  name: string;
  args: string[];
}

export interface ImgproxyUrl {
  signature: string;
  /** What the signature signs: the path after the signature segment, leading `/` included, as sent. */
  signedPath: string;
  options: RawOption[];
  /** The source image's URL, decoded. */
  source: string;
  /** The extension the source part asks for (`@webp`, `.webp`), lower case; null: none. */
  extension: string | null;
}

function decodePlain(text: string): string {
  // imgproxy reads a plain source percent-encoded or as is; an encoded one has no raw `://`.
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw transformError('the plain source is not valid percent-encoding');
  }
}

function decodeBase64(text: string): string {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) throw transformError('the source is neither plain/ nor base64url');
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  if (decoded.includes('\uFFFD')) throw transformError('the base64url source is not a URL');
  return decoded;
}

/** `path` starts with `/` (the request's path after transformPath, not percent-decoded). */
export function parseImgproxyPath(path: string): ImgproxyUrl {
  const segments = path.split('/').slice(1);
  if (segments.length < 2 || segments[0] === '') throw transformError('expected /{signature}/{options}/{source}');
  const [signature, ...rest] = segments;
  const signedPath = path.slice(signature.length + 1);
  const options: RawOption[] = [];
  for (let i = 0; i < rest.length; i++) {
    const segment = rest[i];
    if (segment === 'plain') {
      const plain = rest.slice(i + 1).join('/');
      const at = plain.lastIndexOf('@');
      // An `@` before the path (user@host) is not an extension: one after the last `/` is.
      const hasExtension = at > plain.lastIndexOf('/');
      const url = decodePlain(hasExtension ? plain.slice(0, at) : plain);
      if (url === '') throw transformError('the plain source is empty');
      return { signature, signedPath, options, source: url, extension: hasExtension ? plain.slice(at + 1).toLowerCase() : null };
    }
    if (segment.includes(':')) {
      const [name, ...args] = segment.split(':');
      options.push({ name, args });
      continue;
    }
    if (segment === '') continue;
    const encoded = rest.slice(i).join('');
    const dot = encoded.indexOf('.');
    const extension = dot === -1 ? null : encoded.slice(dot + 1).toLowerCase();
    return { signature, signedPath, options, source: decodeBase64(dot === -1 ? encoded : encoded.slice(0, dot)), extension };
  }
  throw transformError('no source');
}
