/**
 * The transformation URL as imgproxy's builder writes it (delivery/imgproxy-url.ts, signature.ts,
 * transform-options.ts): what is read back from URLs @imgproxy/imgproxy-node makes.
 */
import { generateImageUrl } from '@imgproxy/imgproxy-node';
import { parseImgproxyPath } from '../../server/src/delivery/imgproxy-url';
import { sign, signatureMatches, signatureSecrets } from '../../server/src/delivery/signature';
import { readOptions } from '../../server/src/delivery/transform-options';
import { acceptClass, negotiateFormat } from '../../server/src/delivery/format-negotiation';
import { DEFAULT_PRESETS } from '../../server/src/config/schema';

const KEY = '943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881';
const SALT = '520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5';
const SOURCE = 'http://img.test/uploads/cat_abc.jpg';
const pathOf = (url: string) => url.slice('http://h/img'.length);
type Options = Parameters<typeof generateImageUrl>[0]['options'];
const built = (options: Options, displayAs: 'plain' | 'base64' = 'base64', signed = true) =>
  pathOf(generateImageUrl({ endpoint: 'http://h/img', url: { value: SOURCE, displayAs }, options, ...(signed ? { key: KEY, salt: SALT } : {}) }));

test("the builder's signature is ours", () => {
  const path = built({ width: 300, dpr: 2, quality: 70 });
  const parsed = parseImgproxyPath(path);
  expect(parsed.signedPath).toBe('/dpr:2/q:70/w:300/' + Buffer.from(SOURCE).toString('base64url'));
  expect(sign(signatureSecrets(KEY, SALT), parsed.signedPath)).toBe(parsed.signature);
  expect(signatureMatches(signatureSecrets(KEY, SALT), parsed.signedPath, parsed.signature)).toBe(true);
  expect(signatureMatches(signatureSecrets(KEY, SALT), parsed.signedPath.replace('w:300', 'w:301'), parsed.signature)).toBe(false);
  expect(parsed.signature.length).toBe(43);
});

test('both source forms, with and without an extension', () => {
  expect(parseImgproxyPath(built({ width: 1 }, 'plain'))).toMatchObject({ source: SOURCE, extension: null });
  expect(parseImgproxyPath(`/x/w:1/plain/${SOURCE}@WebP`)).toMatchObject({ source: SOURCE, extension: 'webp' });
  expect(parseImgproxyPath(`/x/w:1/plain/${encodeURIComponent(SOURCE)}@avif`)).toMatchObject({ source: SOURCE, extension: 'avif' });
  const encoded = Buffer.from(SOURCE).toString('base64url');
  expect(parseImgproxyPath(`/x/w:1/${encoded}.png`)).toMatchObject({ source: SOURCE, extension: 'png' });
  // imgproxy lets the base64 be split by slashes.
  expect(parseImgproxyPath(`/x/w:1/${encoded.slice(0, 10)}/${encoded.slice(10)}`)).toMatchObject({ source: SOURCE });
  expect(parseImgproxyPath(built({ width: 1 }, 'base64', false)).signature).toBe('insecure');
});

test('malformed paths: 400/180', () => {
  for (const path of ['/', '/sig', '/sig/w:1', '/sig/w:1/plain/', '/sig/w:1/!!!', '/sig/w:1/plain/%E0%A4%A']) {
    expect(() => parseImgproxyPath(path)).toThrow(expect.objectContaining({ status: 400, code: 180 }));
  }
});

test('options: long and short forms, empty arguments, later ones win, presets in place', () => {
  const read = (path: string) => readOptions(parseImgproxyPath(`/x${path}/plain/${SOURCE}`).options, DEFAULT_PRESETS);
  expect(read('/rs:fill:200:100').spec).toMatchObject({ resizingType: 'fill', width: 200, height: 100, enlarge: false });
  expect(read('/resize::200:100:1').spec).toMatchObject({ resizingType: 'fit', width: 200, height: 100, enlarge: true });
  expect(read('/s:50:60/rt:force').spec).toMatchObject({ resizingType: 'force', width: 50, height: 60 });
  expect(read('/h:200/rt:fill/w:200').spec).toMatchObject({ resizingType: 'fill', width: 200, height: 200 });
  expect(read('/g:fp:0.25:0.75').spec.gravity).toEqual({ type: 'focal', x: 0.25, y: 0.75 });
  expect(read('/gravity:soea:10:5').spec.gravity).toEqual({ type: 'compass', anchor: 'soea', xOffset: 10, yOffset: 5 });
  expect(read('/g:sm').spec.gravity).toEqual({ type: 'smart' });
  expect(read('/q:70/f:webp/dpr:1.5/el:t').spec).toMatchObject({ quality: 70, format: 'webp', dpr: 1.5, enlarge: true });
  expect(read('/ext:jpg').spec.format).toBe('jpeg');
  expect(read('/pr:thumbnail/w:100').spec).toMatchObject({ resizingType: 'fit', width: 100, height: 156 });
  expect(read('/w:100/pr:small').spec.width).toBe(500);
  expect(read('/pr:small:thumbnail')).toMatchObject({ presetsOnly: true, spec: { width: 245, height: 156 } });
  expect(read('/pr:small/w:1').presetsOnly).toBe(false);
  for (const bad of ['/w:-1', '/dpr:0', '/dpr:4.5', '/q:101', '/el:yes', '/rs:fill:1:1:0:1', '/g:fp:2:0', '/g:fp:0.5', '/pr:nope', '/blur:1', '/f:tiff']) {
    expect(() => read(bad)).toThrow(expect.objectContaining({ status: 400, code: 180 }));
  }
});

test('negotiation: AVIF, then WebP, then the source format; q=0 refuses; wildcards do not count', () => {
  expect(negotiateFormat('image/avif,image/webp,*/*', 'jpeg')).toBe('avif');
  expect(negotiateFormat('image/webp;q=0.9, image/avif;q=0', 'png')).toBe('webp');
  expect(negotiateFormat('image/*,*/*;q=0.8', 'png')).toBe('png');
  expect(negotiateFormat(undefined, 'gif')).toBe('gif');
});

test('negotiation for an animated source: WebP, never AVIF, else the source format; the Accept classes keep AVIF alone apart', () => {
  expect(negotiateFormat('image/avif,image/webp,*/*', 'gif', true)).toBe('webp');
  expect(negotiateFormat('image/avif,*/*', 'gif', true)).toBe('gif');
  expect(negotiateFormat('image/avif', 'webp', true)).toBe('webp');
  expect(negotiateFormat('image/webp;q=0', 'gif', true)).toBe('gif');
  expect(negotiateFormat(undefined, 'gif', true)).toBe('gif');
  expect(['image/avif,image/webp', 'image/avif', 'image/webp', '*/*', undefined].map(acceptClass)).toEqual(['avif+webp', 'avif', 'webp', 'other', 'other']);
  expect(acceptClass('image/webp,image/avif;q=0.5')).toBe('avif+webp');
});
