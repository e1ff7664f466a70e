/**
 * Transformations in imgproxy's URL format (docs/api.md "Transformations"): URLs made
 * by imgproxy's own Node builder, both source forms, signatures, presets, format negotiation, the
 * focal point, the limits, and kept results: rendered once, read back, removed with their image.
 */
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import type { AddressInfo } from 'net';
import sharp from 'sharp';
import { generateImageUrl } from '@imgproxy/imgproxy-node';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { gif, jpeg, png } from '../../helpers/fixtures';
import { signedPath } from '../../helpers/imgproxy';
import { plays, readAnimation } from '../../helpers/animation';
import { animatedGif } from '../../../tools/support/images/gif';
import { animatedWebp } from '../../../tools/support/images/webp';

const KEY = crypto.randomBytes(32).toString('hex');
const SALT = crypto.randomBytes(16).toString('hex');
const app = useApp({ IMAGE_API_TRANSFORM_KEY: KEY, IMAGE_API_TRANSFORM_SALT: SALT });
const ENDPOINT = 'http://img.test:1337/img';

type Options = Parameters<typeof generateImageUrl>[0]['options'];
/** A signed URL's path, as imgproxy's builder writes it. */
const signed = (source: string, options: Options, displayAs: 'plain' | 'base64' = 'base64') =>
  new URL(generateImageUrl({ endpoint: ENDPOINT, url: { value: source, displayAs }, options, key: KEY, salt: SALT })).pathname;
const unsigned = (source: string, options: Options, displayAs: 'plain' | 'base64' = 'base64') =>
  new URL(generateImageUrl({ endpoint: ENDPOINT, url: { value: source, displayAs }, options })).pathname;

/** A hand-written path (`/rs:fill:100:100/plain/...`) with its signature in front. */
const signPath = (rest: string) => signedPath(KEY, SALT, rest);
/** AVIF is an ISO-BMFF file of brand `avif` (this process's sharp has its HEIF loader blocked by the plugin). */
const isAvif = (bytes: Buffer) => bytes.subarray(4, 12).toString('latin1') === 'ftypavif';

const renditions = () => app.strapi.db.connection('image_api_renditions');
/** Results are kept after their answer went: waits for that. */
const kept = () => app.strapi.plugin('image-api').service('renditions').settled();

/** Pixels of a picture whose left half is red and right half blue, so a crop shows where it was taken. */
const halves = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#ff0000' } })
    .composite([{ input: { create: { width: width / 2, height, channels: 3, background: '#0000ff' } }, left: width / 2, top: 0 }])
    .jpeg({ quality: 95 })
    .toBuffer();

/** Pixels that do not compress: a PNG of them stays near 3 bytes a pixel (a result over the hot cache's 1 MB entries). */
const noise = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();

let original: { url: string; name: string; medium: string; idEncoded: string };
let large: { url: string; name: string };
beforeAll(async () => {
  const res = await app.upload(app.key, await halves(1200, 800), { filename: 'halves.jpg' });
  expect(res.status).toBe(200);
  original = { url: res.body.image.url, name: res.body.image.name, medium: res.body.image.medium.url, idEncoded: res.body.image.id_encoded };
  const big = await app.upload(app.key, await noise(1000, 800), { filename: 'noise.png' });
  expect(big.status).toBe(200);
  large = { url: big.body.image.url, name: big.body.image.name };
});

describe('URLs from imgproxy-node', () => {
  test('a signed resize, base64 source: 200 with the image at that width, immutable caching, a strong ETag', async () => {
    const res = await app.http.get(signed(original.url, { width: 300, format: 'jpg' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['cache-control']).toBe('public, max-age=2592000, immutable');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers['last-modified']).toBeDefined();
    expect(res.headers.vary).toBeUndefined();
    const meta = await sharp(res.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 300, 200]);
  });

  test('the plain source form, and a percent-encoded one, answer the same bytes', async () => {
    const plain = await app.http.get(signed(original.url, { width: 301, format: 'png' }, 'plain'));
    expect(plain.status).toBe(200);
    expect((await sharp(plain.body).metadata()).width).toBe(301);
    const options = '/f:png/w:301/plain/';
    const encodedPath = `${options}${encodeURIComponent(original.url)}`;
    const encoded = await app.http.get(signPath(encodedPath));
    expect(encoded.status).toBe(200);
    expect(Buffer.compare(encoded.body, plain.body)).toBe(0);
  });

  test('fill crops to the box; a variant URL is a source too', async () => {
    const fill = await app.http.get(signed(original.url, { resize: { resizing_type: 'fill', width: 200, height: 200 }, format: 'webp' }));
    expect(fill.status).toBe(200);
    expect(fill.headers['content-type']).toBe('image/webp');
    expect(await sharp(fill.body).metadata()).toMatchObject({ width: 200, height: 200, format: 'webp' });
    const fromMedium = await app.http.get(signed(original.medium, { width: 100, format: 'jpg' }));
    expect(fromMedium.status).toBe(200);
    expect((await sharp(fromMedium.body).metadata()).width).toBe(100);
  });

  test('never enlarged unless asked', async () => {
    const asked = await app.http.get(signed(original.url, { width: 2400, format: 'jpg' }));
    expect((await sharp(asked.body).metadata()).width).toBe(1200);
    const enlarged = await app.http.get(signed(original.url, { width: 1800, enlarge: 1, format: 'jpg' }));
    expect((await sharp(enlarged.body).metadata()).width).toBe(1800);
  });

  test('dpr multiplies the size', async () => {
    const res = await app.http.get(signed(original.url, { width: 200, dpr: 2, format: 'jpg' }));
    expect((await sharp(res.body).metadata()).width).toBe(400);
  });

  test('local:///{file name} names a stored file too', async () => {
    const res = await app.http.get(signed(`local:///${path.basename(new URL(original.url).pathname)}`, { width: 120, format: 'png' }));
    expect(res.status).toBe(200);
    expect((await sharp(res.body).metadata()).width).toBe(120);
  });
});

describe('signatures', () => {
  test('a wrong signature: 403/181 "Invalid signature: sign the URL ... or use presets alone", no-store, nothing rendered', async () => {
    await kept();
    const before = (await renditions().count({ n: '*' }))[0].n;
    const good = signed(original.url, { width: 250 });
    const wrong = good.replace(/^\/img\/[^/]+/, '/img/' + 'A'.repeat(43));
    for (const path of [wrong, unsigned(original.url, { width: 250 })]) {
      const res = await app.http.get(path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status_code: 403, error: { message: 'Invalid signature: sign the URL with the transformation key and salt, or use presets alone (pr:name), which need no signature', code: 181 }, status_txt: 'Forbidden' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect((await renditions().count({ n: '*' }))[0].n).toBe(before);
  });

  test('presets alone may go unsigned: `thumbnail` fits within 245×156, `small` is 500 wide', async () => {
    const thumb = await app.http.get(unsigned(original.url, { preset: ['thumbnail'], format: undefined }).replace(/\/f:[^/]+/, ''));
    expect(thumb.status).toBe(200);
    expect(await sharp(thumb.body).metadata()).toMatchObject({ width: 234, height: 156 });
    const small = await app.http.get(`/img/anything/pr:small/plain/${original.url}@jpg`);
    expect(small.status).toBe(200);
    expect(await sharp(small.body).metadata()).toMatchObject({ width: 500, format: 'jpeg' });
  });

  test('a preset with another option must be signed, a format option too (an extension is no option); the refusal says to sign or use presets alone', async () => {
    const res = await app.http.get(`/img/insecure/pr:small/q:50/plain/${original.url}`);
    expect(res.status).toBe(403);
    for (const path of [`/img/insecure/pr:small/q:50/plain/${original.url}`, `/img/_/pr:small/f:webp/plain/${original.url}`, `/img/_/pr:small/${Buffer.from(original.url).toString('base64url')}`.replace('pr:small', 'w:300')]) {
      const refused = await app.http.get(path);
      expect([path, refused.status, refused.body.error]).toEqual([
        path,
        403,
        { message: 'Invalid signature: sign the URL with the transformation key and salt, or use presets alone (pr:name), which need no signature', code: 181 },
      ]);
    }
    // A preset takes a format unsigned from the extension (docs/api.md, "Transformations").
    const webp = await app.http.get(`/img/_/pr:small/plain/${original.url}@webp`);
    expect([webp.status, webp.headers['content-type']]).toEqual([200, 'image/webp']);
  });
});

describe('format', () => {
  test('no format: AVIF for a client that takes it, then WebP, else the source format; Vary: Accept', async () => {
    const options = { preset: ['medium'] };
    const url = unsigned(original.url, options);
    const cases: Array<[string | undefined, string, string]> = [
      ['image/avif,image/webp,image/*,*/*;q=0.8', 'image/avif', 'avif'],
      ['image/webp,*/*', 'image/webp', 'webp'],
      ['image/avif;q=0,image/webp', 'image/webp', 'webp'],
      [undefined, 'image/jpeg', 'jpeg'],
      ['*/*', 'image/jpeg', 'jpeg'],
    ];
    for (const [accept, type, format] of cases) {
      const req = app.http.get(url);
      const res = await (accept ? req.set('Accept', accept) : req);
      expect([accept, res.status, res.headers['content-type'], res.headers.vary]).toEqual([accept, 200, type, 'Accept']);
      expect(format === 'avif' ? isAvif(res.body) : (await sharp(res.body).metadata()).format === format).toBe(true);
    }
  });

  test('an extension names the format: @webp (plain), .png (base64)', async () => {
    const plain = await app.http.get(`/img/x/pr:small/plain/${original.url}@webp`);
    expect(plain.headers['content-type']).toBe('image/webp');
    expect(plain.headers.vary).toBeUndefined();
    const encoded = Buffer.from(original.url).toString('base64url');
    const b64 = await app.http.get(`/img/x/pr:small/${encoded}.png`);
    expect(b64.headers['content-type']).toBe('image/png');
  });
});

describe('refusals', () => {
  test.each([
    ['an unknown option', 'blur:5', 'unknown option "blur"'],
    ['a dpr over 4', 'dpr:5', 'dpr must be a number from 0.01 to 4'],
    ['a result over maxTransformPixels', 'w:5000/h:5000', 'the result would exceed 16000000 pixels'],
    ['a bad resizing type', 'rt:stretch', 'resizing type must be one of fit, fill, fill-down, force, auto'],
    ['an unknown format', 'f:tiff', 'unsupported format "tiff"'],
    ['a malformed width', 'w:wide', 'width must be a whole number from 0 to 100000'],
    ['a bad gravity', 'g:up', 'gravity must be one of no, so, ea, we, noea, nowe, soea, sowe, ce, sm or fp:x:y'],
  ])('%s: 400/180', async (_, options, detail) => {
    const res = await app.http.get(signPath(`/${options}/plain/${original.url}`));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, error: { message: `Invalid transformation: ${detail}`, code: 180 }, status_txt: 'Bad Request' });
  });

  test('an unknown preset (unsigned): 400/180', async () => {
    const res = await app.http.get(`/img/x/pr:huge/plain/${original.url}`);
    expect(res.body.error).toEqual({ message: 'Invalid transformation: unknown preset "huge"', code: 180 });
  });

  test('GIF output needs a signed URL (its encoder costs several times AVIF\'s): unsigned, in any spelling, 400/180 before any work; signed, a GIF', async () => {
    await kept();
    const before = (await renditions().count({ n: '*' }))[0].n;
    const encoded = Buffer.from(original.url).toString('base64url');
    for (const urlPath of [
      `/img/_/pr:small/plain/${original.url}@gif`,
      `/img/insecure/pr:xlarge/plain/${original.url}@GIF`,
      `/img/_/pr:thumbnail/${encoded}.gif`,
      `/img/_/pr:small/pr:large/plain/${encodeURIComponent(original.url)}@gif`,
      `/img/_/pr:small/plain/http://img.test:1337/uploads/nope.jpg@gif`,
    ]) {
      const res = await app.http.get(urlPath);
      expect([urlPath, res.status, res.headers['cache-control']]).toEqual([urlPath, 400, 'no-store']);
      expect(res.body).toEqual({ status_code: 400, error: { message: 'Invalid transformation: GIF output needs a signed URL', code: 180 }, status_txt: 'Bad Request' });
    }
    await kept();
    expect((await renditions().count({ n: '*' }))[0].n).toBe(before);
    const signedGif = await app.http.get(signed(original.url, { width: 120, format: 'gif' }));
    expect([signedGif.status, signedGif.headers['content-type']]).toEqual([200, 'image/gif']);
    expect(await sharp(signedGif.body).metadata()).toMatchObject({ format: 'gif', width: 120 });
  });

  test('a GIF source asked for by an unsigned URL, nothing named or accepted: PNG rather than a GIF encode; signed, its own GIF', async () => {
    const image = (await app.upload(app.key, await gif(320, 240), { filename: 'still.gif' })).body.image;
    const unsignedAnswer = await app.http.get(`/img/_/pr:thumbnail/plain/${image.url}`).set('Accept', '*/*');
    expect([unsignedAnswer.status, unsignedAnswer.headers['content-type'], unsignedAnswer.headers.vary]).toEqual([200, 'image/png', 'Accept']);
    expect((await sharp(unsignedAnswer.body).metadata()).format).toBe('png');
    const webp = await app.http.get(`/img/_/pr:thumbnail/plain/${image.url}`).set('Accept', 'image/webp,*/*');
    expect(webp.headers['content-type']).toBe('image/webp');
    const signedAnswer = await app.http.get(signed(image.url, { width: 100 })).set('Accept', '*/*');
    expect([signedAnswer.status, signedAnswer.headers['content-type']]).toEqual([200, 'image/gif']);
  });

  test("another host's URL, or an unknown file: 404 with no-store; nothing is fetched", async () => {
    for (const source of ['http://127.0.0.1:9/a.jpg', `http://img.test:1337/uploads/nope.jpg`, original.url.replace('img.test', 'other.test')]) {
      const res = await app.http.get(signed(source, { width: 100 }));
      expect([source, res.status, res.headers['cache-control']]).toEqual([source, 404, 'no-store']);
      expect(res.body.error.code).toBe(404);
    }
  });
});

describe('animated sources: every frame, its delays and its loop count, where the format carries them', () => {
  const DELAYS_MS = [40, 80, 120, 160];
  let gifImage: { url: string; medium: { url: string }; name: string };
  let webpImage: { url: string; name: string };
  let gifBytes: Buffer;
  beforeAll(async () => {
    gifBytes = animatedGif({ width: 300, height: 200, frames: 8, distinct: 4, delaysCs: DELAYS_MS.map((ms) => ms / 10), loops: 2 });
    gifImage = (await app.upload(app.key, gifBytes, { filename: 'moving.gif' })).body.image;
    const webpBytes = await animatedWebp({ width: 300, height: 200, frames: 8, distinct: 4, delaysMs: DELAYS_MS, loops: 3 });
    webpImage = (await app.upload(app.key, webpBytes, { filename: 'moving.webp' })).body.image;
  });
  const expectAnimation = (bytes: Buffer, expected: { format: 'gif' | 'webp'; width: number; height: number }) => {
    const animation = readAnimation(bytes);
    expect({ format: animation.format, width: animation.width, height: animation.height, frames: animation.frames, delaysMs: animation.delaysMs, plays: plays(animation) }).toEqual({
      ...expected,
      frames: 8,
      delaysMs: [...DELAYS_MS, ...DELAYS_MS],
      plays: 3,
    });
  };

  test('f:webp and f:gif of an animated GIF and an animated WebP: animated, in the format asked for', async () => {
    for (const [source, format] of [[gifImage, 'webp'], [gifImage, 'gif'], [webpImage, 'gif'], [webpImage, 'webp']] as const) {
      const res = await app.http.get(signed(source.url, { width: 150, format }));
      expect([source.url, format, res.status, res.headers['content-type'], res.headers.vary]).toEqual([source.url, format, 200, `image/${format}`, undefined]);
      expectAnimation(res.body, { format, width: 150, height: 100 });
    }
  });

  test('a preset, Accept image/avif,image/webp: an animated WebP, never a still AVIF; AVIF alone or */*: its own animated GIF', async () => {
    const url = `/img/_/pr:thumbnail/plain/${gifImage.url}`;
    for (const [accept, format] of [['image/avif,image/webp,image/*,*/*;q=0.8', 'webp'], ['image/avif,image/*', 'gif'], ['*/*', 'gif'], ['image/avif,image/webp', 'webp']] as const) {
      // Twice: the second is the fast path's repeat, which must not answer another Accept class.
      for (let i = 0; i < 2; i++) {
        const res = await app.http.get(url).set('Accept', accept);
        expect([accept, res.status, res.headers['content-type'], res.headers.vary]).toEqual([accept, 200, `image/${format}`, 'Accept']);
        expectAnimation(res.body, { format, width: 234, height: 156 });
      }
      await kept();
    }
  });

  test('an explicit still format takes the first frame: f:jpg, f:png, f:avif', async () => {
    const first = await sharp(gifBytes, { page: 0 }).resize({ width: 150 }).removeAlpha().raw().toBuffer();
    const second = await sharp(gifBytes, { page: 1 }).resize({ width: 150 }).removeAlpha().raw().toBuffer();
    const distance = (a: Buffer, b: Buffer) => a.reduce((sum, value, i) => sum + Math.abs(value - b[i]), 0) / a.length;
    for (const format of ['jpg', 'png'] as const) {
      const res = await app.http.get(signed(gifImage.url, { width: 150, format }));
      expect([format, res.status, res.headers['content-type']]).toEqual([format, 200, format === 'jpg' ? 'image/jpeg' : 'image/png']);
      const meta = await sharp(res.body).metadata();
      expect([meta.width, meta.height, meta.pages ?? 1]).toEqual([150, 100, 1]);
      const pixels = await sharp(res.body).removeAlpha().raw().toBuffer();
      expect(distance(pixels, first)).toBeLessThan(distance(pixels, second) / 2);
    }
    const avif = await app.http.get(signed(gifImage.url, { width: 150, format: 'avif' }));
    expect([avif.status, avif.headers['content-type']]).toEqual([200, 'image/avif']);
    // A still AVIF, not an image sequence (brand `avis`).
    expect(avif.body.subarray(4, 12).toString('latin1')).toBe('ftypavif');
  });

  test('crops keep every frame: fill, gravity sm (the first frame’s window for all), and a variant as source', async () => {
    for (const gravity of [undefined, { type: 'sm' }] as const) {
      const res = await app.http.get(signed(gifImage.url, { resize: { resizing_type: 'fill', width: 100, height: 100 }, ...(gravity ? { gravity } : {}), format: 'webp' }));
      expect([gravity, res.status]).toEqual([gravity, 200]);
      expectAnimation(res.body, { format: 'webp', width: 100, height: 100 });
    }
    const fromMedium = await app.http.get(signed(gifImage.medium.url, { width: 120, format: 'gif' }));
    expect(fromMedium.status).toBe(200);
    expectAnimation(fromMedium.body, { format: 'gif', width: 120, height: 80 });
  });

  test('an animated result past the animation bounds (20 MP in all its frames): 400/180 before any work; as a still it renders', async () => {
    await kept();
    const before = (await renditions().count({ n: '*' }))[0].n;
    // 8 frames of 3000×2000: 48 MP.
    const res = await app.http.get(signed(gifImage.url, { width: 3000, enlarge: 1, format: 'webp' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, error: { message: 'Invalid transformation: the animated result would exceed 20000000 pixels in all its frames', code: 180 }, status_txt: 'Bad Request' });
    const still = await app.http.get(signed(gifImage.url, { width: 3000, enlarge: 1, format: 'jpg' }));
    expect([still.status, (await sharp(still.body).metadata()).width]).toEqual([200, 3000]);
    await kept();
    expect(Number((await renditions().count({ n: '*' }))[0].n)).toBe(Number(before) + 1);
  });
});

describe('kept results', () => {
  test('rendered once: a repeat is the kept file, byte for byte; a revalidation is 304; HEAD; Range', async () => {
    const url = signed(original.url, { width: 333, format: 'jpg' });
    const first = await app.http.get(url);
    await kept();
    const rows = await renditions().where('image_name', original.name).where('width', 333);
    expect(rows).toHaveLength(1);
    const file = path.join(app.uploadsDir, `${rows[0].hash}${rows[0].ext}`);
    expect(Buffer.compare(fs.readFileSync(file), first.body)).toBe(0);
    expect(rows[0].size).toBe(first.body.length);

    const again = await app.http.get(url);
    expect(Buffer.compare(again.body, first.body)).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await renditions().where('image_name', original.name).where('width', 333)).toHaveLength(1);

    const revalidated = await app.http.get(url).set('If-None-Match', first.headers.etag);
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toEqual({});
    const head = await app.http.head(url);
    expect([head.status, head.headers['content-length'], head.headers['content-type']]).toEqual([200, String(first.body.length), 'image/jpeg']);
    const range = await app.http.get(url).set('Range', 'bytes=0-9').buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(range.status).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 0-9/${first.body.length}`);
    expect(Buffer.compare(range.body, first.body.subarray(0, 10))).toBe(0);
  });

  test('a result too big for the hot bytes is streamed from its kept file: the bytes, HEAD, Range; a file gone since is rendered anew', async () => {
    const url = signed(large.url, { width: 990, format: 'png' });
    const first = await app.http.get(url);
    expect(first.status).toBe(200);
    expect(first.body.length).toBeGreaterThan(1_000_000);
    await kept();
    const [row] = await renditions().where('image_name', large.name).where('width', 990);
    const file = path.join(app.uploadsDir, `${row.hash}${row.ext}`);
    const read = jest.spyOn(app.strapi.plugin('image-api').service('media-store'), 'read');
    try {
      const again = await app.http.get(url);
      expect([again.status, again.headers['content-length'], again.headers.etag]).toEqual([200, String(first.body.length), first.headers.etag]);
      expect(Buffer.compare(again.body, fs.readFileSync(file))).toBe(0);
      const head = await app.http.head(url);
      expect([head.status, head.headers['content-length'], head.headers['content-type']]).toEqual([200, String(first.body.length), 'image/png']);
      const range = await app.http.get(url).set('Range', 'bytes=1000-1999').buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect([range.status, range.headers['content-range'], range.headers['content-length']]).toEqual([206, `bytes 1000-1999/${first.body.length}`, '1000']);
      expect(Buffer.compare(range.body, first.body.subarray(1000, 2000))).toBe(0);
      // Never read whole into memory.
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
    fs.rmSync(file);
    const rendered = await app.http.get(url);
    expect([rendered.status, Buffer.compare(rendered.body, first.body)]).toEqual([200, 0]);
    await kept();
    expect(fs.existsSync(file)).toBe(true);
    expect(await renditions().where('image_name', large.name).where('width', 990)).toHaveLength(1);

    // Evicted between the lookup and the read (the file goes just before it is opened): rendered anew, not a 500.
    const store = app.strapi.plugin('image-api').service('media-store');
    const stream = store.stream;
    const racing = jest.spyOn(store, 'stream').mockImplementationOnce((...args: unknown[]) => {
      fs.rmSync(file);
      return stream.apply(store, args);
    });
    try {
      const raced = await app.http.get(url);
      expect([raced.status, raced.headers['content-length'], Buffer.compare(raced.body, first.body)]).toEqual([200, String(first.body.length), 0]);
      expect(racing).toHaveBeenCalledTimes(1);
    } finally {
      racing.mockRestore();
    }
    await kept();
    expect(Buffer.compare(fs.readFileSync(file), first.body)).toBe(0);
    expect(await renditions().where('image_name', large.name).where('width', 990)).toHaveLength(1);
  });

  /** Waits for `condition`, failing after 10 s. */
  const until = async (condition: () => Promise<boolean>, what: string) => {
    for (const deadline = Date.now() + 10_000; !(await condition()); await new Promise((resolve) => setTimeout(resolve, 10))) {
      if (Date.now() > deadline) throw new Error(`waited 10 s for this in vain: ${what}`);
    }
  };

  test('a result rendered again before the first render was kept is written once: its file is never cut short under a reader', async () => {
    const url = signed(large.url, { width: 970, format: 'png' });
    const store = app.strapi.plugin('image-api').service('media-store');
    const sources = app.strapi.plugin('image-api').service('image-sources');
    const { put, byName } = store;
    const lookUp = sources.byName;
    const held = () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      return { release, released };
    };
    const firstWrite = held();
    const thirdRender = held();
    const written: string[] = [];
    let rendersEnded = 0;
    let holdNextRender = false;
    try {
      store.put = async (file: { hash: string; ext: string }, bytes: Buffer) => {
        written.push(`${file.hash}${file.ext}`);
        if (written.length === 1) await firstWrite.released;
        return put.call(store, file, bytes);
      };
      // Called once a render is done (has its image gone meanwhile?): counts renders, holds one.
      sources.byName = async (name: string) => {
        rendersEnded += 1;
        if (holdNextRender) {
          holdNextRender = false;
          await thirdRender.released;
        }
        return lookUp.call(sources, name);
      };
      const first = await app.http.get(url);
      expect([first.status, rendersEnded]).toEqual([200, 1]);
      // Its file waits to be written, no row yet: a repeat renders again, while this instance keeps it.
      const second = await app.http.get(url);
      expect([second.status, rendersEnded, Buffer.compare(second.body, first.body)]).toEqual([200, 2, 0]);
      // Another repeat renders, and ends once the first result is kept: its row is there.
      holdNextRender = true;
      const third = app.http.get(url).then((res) => res);
      await until(async () => rendersEnded === 3, 'the third request renders');
      firstWrite.release();
      await until(async () => (await renditions().where('image_name', large.name).where('width', 970)).length === 1, 'the first result is kept');
      thirdRender.release();
      expect([(await third).status, Buffer.compare((await third).body, first.body)]).toEqual([200, 0]);
      await kept();
      expect(written).toHaveLength(1);
      const rows = await renditions().where('image_name', large.name).where('width', 970);
      expect(rows.map((row: { hash: string; ext: string }) => `${row.hash}${row.ext}`)).toEqual(written);
      expect(Buffer.compare(fs.readFileSync(path.join(app.uploadsDir, written[0])), first.body)).toBe(0);
    } finally {
      firstWrite.release();
      thirdRender.release();
      store.put = put;
      sources.byName = lookUp;
    }
  });

  test('a hot repeat is answered before the app (the fast path), with the same headers; another Accept class is not', async () => {
    const url = `/img/_/pr:large/plain/${original.url}`;
    const first = await app.http.get(url).set('Accept', 'image/webp');
    const answer = jest.spyOn(app.strapi.plugin('image-api').service('transforms'), 'answer');
    try {
      // A lookup of the image is reused for a second: when the render took longer, the next request
      // goes through the app once (and looks it up again); the one after is the fast path's.
      let hot = await app.http.get(url).set('Accept', 'image/webp,*/*;q=0.8');
      if (answer.mock.calls.length > 0) {
        answer.mockClear();
        hot = await app.http.get(url).set('Accept', 'image/webp,*/*;q=0.8');
      }
      expect(answer).not.toHaveBeenCalled();
      for (const header of ['cache-control', 'etag', 'last-modified', 'content-type', 'content-length', 'vary']) {
        expect([header, hot.headers[header]]).toEqual([header, first.headers[header]]);
      }
      const png = await app.http.get(url).set('Accept', 'image/png');
      expect(png.headers['content-type']).toBe('image/jpeg');
      expect(answer).toHaveBeenCalledTimes(1);
    } finally {
      answer.mockRestore();
    }
  });

  test('concurrent requests for one new result share one render and one kept file', async () => {
    const url = signed(original.url, { width: 411, format: 'webp' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => app.http.get(url)));
    expect(answers.map((res) => res.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((res) => res.headers.etag)).size).toBe(1);
    await kept();
    expect(await renditions().where('image_name', original.name).where('width', 411)).toHaveLength(1);
  });

  test('a focal point moved in the Media Library moves the crop at once', async () => {
    const cropOf = async () => {
      const res = await app.http.get(signPath(`/rs:fill:40:100/plain/${original.url}@png`));
      expect(res.status).toBe(200);
      const { data } = await sharp(res.body).raw().toBuffer({ resolveWithObject: true });
      return { red: data[0], blue: data[2] };
    };
    // A 40×100 window of the picture scaled to 150×100: at the left edge all red, at the right all blue.
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: original.name } });
    const auth = { Authorization: `Bearer ${await adminToken(app)}` };
    const move = async (x: number) => {
      const res = await app.http.put(`/upload/files/${file.id}`).set(auth).send({ fileInfo: { focalPoint: { x, y: 50 } } });
      expect(res.status).toBe(200);
    };
    await move(5);
    expect((await cropOf()).red).toBeGreaterThan(200);
    await move(95);
    const right = await cropOf();
    expect(right.blue).toBeGreaterThan(200);
    expect(right.red).toBeLessThan(50);
  });

  test('deleting the image removes its kept results, rows and files, and its URLs answer 404', async () => {
    const res = await app.upload(app.key, await jpeg(400, 300), { filename: 'gone.jpg' });
    const image = res.body.image;
    const url = signed(image.url, { width: 100, format: 'jpg' });
    expect((await app.http.get(url)).status).toBe(200);
    expect((await app.http.get(signed(image.url, { width: 120, format: 'webp' }))).status).toBe(200);
    await kept();
    const results = await renditions().where('image_name', image.name);
    expect(results).toHaveLength(2);
    const deleted = await app.http.post('/api/1/delete').set('X-API-Key', app.key).send({ id: image.id_encoded });
    expect(deleted.status).toBe(200);
    expect(await renditions().where('image_name', image.name)).toHaveLength(0);
    for (const row of results) expect(fs.existsSync(path.join(app.uploadsDir, `${row.hash}${row.ext}`))).toBe(false);
    expect(await app.strapi.db.connection('image_api_pending_uploads').where('name', image.name)).toHaveLength(0);
    const after = await app.http.get(url);
    expect([after.status, after.headers['cache-control']]).toEqual([404, 'no-store']);
  });

  test('a storage that fails after writing part of a result: the answer still goes, and nothing is left behind', async () => {
    const provider = app.strapi.plugin('upload').provider;
    const upload = provider.upload;
    provider.upload = async (file: { hash: string; ext: string }) => {
      if (!file.hash.includes('_t')) return upload.call(provider, file);
      fs.writeFileSync(path.join(app.uploadsDir, `${file.hash}${file.ext}`), Buffer.from('half a file'));
      throw new Error('disk full');
    };
    try {
      const res = await app.http.get(signed(original.url, { width: 123, format: 'jpg' }));
      expect(res.status).toBe(200);
      await kept();
    } finally {
      provider.upload = upload;
    }
    expect(await renditions().where('width', 123)).toHaveLength(0);
    expect(fs.readdirSync(app.uploadsDir).filter((name) => name.includes('_t') && fs.readFileSync(path.join(app.uploadsDir, name)).toString() === 'half a file')).toEqual([]);
    expect(await app.strapi.db.connection('image_api_pending_uploads').where('name', 'like', 'rendition:%')).toHaveLength(0);
  });

  test('an image deleted while one of its results renders: no result row, file or journal row is left', async () => {
    const res = await app.upload(app.key, await jpeg(1600, 1200), { filename: 'racing.jpg' });
    const image = res.body.image;
    const renders = Array.from({ length: 4 }, (_, i) => app.http.get(signed(image.url, { width: 200 + i, format: 'webp' })));
    const deleted = app.http.post('/api/1/delete').set('X-API-Key', app.key).send({ id: image.id_encoded });
    const answers = await Promise.all([...renders, deleted]);
    expect(answers[4].status).toBe(200);
    for (const answer of answers.slice(0, 4)) expect([200, 404]).toContain(answer.status);
    await kept();
    expect(await renditions().where('image_name', image.name)).toHaveLength(0);
    expect(fs.readdirSync(app.uploadsDir).filter((name) => name.startsWith(image.name))).toEqual([]);
    expect(await app.strapi.db.connection('image_api_pending_uploads').where('name', image.name)).toHaveLength(0);
    expect(await app.strapi.db.connection('image_api_pending_uploads').where('name', 'like', 'rendition:%')).toHaveLength(0);
  });

  test('sources read into memory (up to 8 MB, renders at once) and one read by its path render as sharp does; a source file gone from disk: 404, no-store', async () => {
    // Renders read a stored file into a reused 8 MiB buffer, a larger one by its path (storage/reused-buffers.ts).
    const bytes = { small: await noise(400, 300), other: await noise(300, 400), large: await noise(1800, 1650) };
    const sources: Record<string, { url: string; file: string }> = {};
    for (const [size, sent] of Object.entries(bytes)) {
      const res = await app.upload(app.key, sent, { filename: `${size}.png` });
      expect(res.status).toBe(200);
      sources[size] = { url: res.body.image.url, file: path.join(app.uploadsDir, path.basename(new URL(res.body.image.url).pathname)) };
      // Stored as sent (a PNG without metadata): the file is the bytes above.
      expect(fs.statSync(sources[size].file).size).toBe(sent.length);
    }
    expect(Math.max(bytes.small.length, bytes.other.length)).toBeLessThan(8 * 1024 * 1024);
    expect(bytes.large.length).toBeGreaterThan(8 * 1024 * 1024);
    /** The same pixels as sharp's own resize of the bytes sent, whichever way the file was read. */
    const rendersAsSharp = async (size: keyof typeof bytes, width: number) => {
      const res = await app.http.get(signed(sources[size].url, { width, format: 'png' }));
      expect(res.status).toBe(200);
      const { width: sentWidth = 0, height: sentHeight = 0 } = await sharp(bytes[size]).metadata();
      const expected = await sharp(bytes[size]).resize(width, Math.round((sentHeight * width) / sentWidth), { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
      const got = await sharp(res.body).raw().toBuffer({ resolveWithObject: true });
      expect([got.info.width, got.info.height, got.info.channels]).toEqual([expected.info.width, expected.info.height, expected.info.channels]);
      expect(Buffer.compare(got.data, expected.data)).toBe(0);
    };
    await rendersAsSharp('large', 120);
    // Two sources rendered at once, twice over (4 renders: this address's limit): each its own pixels.
    await Promise.all([120, 121].flatMap((width) => [rendersAsSharp('small', width), rendersAsSharp('other', width)]));
    await kept();
    for (const { url, file } of [sources.small, sources.large]) {
      fs.rmSync(file);
      const res = await app.http.get(signed(url, { width: 122, format: 'png' }));
      expect([res.status, res.headers['cache-control']]).toEqual([404, 'no-store']);
    }
  });

  test('a PNG source keeps PNG when nothing else is accepted', async () => {
    const res = await app.upload(app.key, await png(300, 200));
    const answer = await app.http.get(`/img/x/pr:small/plain/${res.body.image.url}`);
    expect(answer.headers['content-type']).toBe('image/png');
  });
});

describe('revalidation from fetch() (it sends Cache-Control: no-cache with every validator)', () => {
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(app.strapi.server.httpServer.address() as AddressInfo).port}`;
  });
  const service = (name: string) => app.strapi.plugin('image-api').service(name);
  /** A GET by Node's own fetch(); the status, the headers that matter and the body's length. */
  const get = async (urlPath: string, headers: Record<string, string>) => {
    const res = await fetch(`${base}${urlPath}`, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, etag: res.headers.get('etag'), bodyBytes: body.length };
  };
  /** The four ways a client revalidates, and what an origin answers (RFC 9110 §13.2.2). */
  const revalidations = (etag: string, lastModified: string): Array<[string, Record<string, string>, number]> => [
    ['the ETag', { 'If-None-Match': etag }, 304],
    ['the ETag among others, weak', { 'If-None-Match': `"0-0", W/${etag}` }, 304],
    ['the date alone', { 'If-Modified-Since': lastModified }, 304],
    ['another ETag with a current date: If-None-Match decides', { 'If-None-Match': '"0-0"', 'If-Modified-Since': lastModified }, 200],
  ];

  test('a direct file: 304 on the app path (a cold file) and on the fast path (its hot repeat)', async () => {
    const image = (await app.upload(app.key, await jpeg(500, 400), { filename: 'revalidated.jpg' })).body.image;
    const urlPath = app.pathOf(image.url);
    const stat = fs.statSync(path.join(app.uploadsDir, path.basename(urlPath)));
    const etag = `"${Math.floor(stat.mtimeMs / 1000).toString(16)}-${stat.size.toString(16)}"`;
    const find = jest.spyOn(service('direct-files'), 'find');
    try {
      // Never served yet: the app answers (and keeps the bytes hot).
      expect(await get(urlPath, { 'If-None-Match': etag })).toEqual({ status: 304, etag, bodyBytes: 0 });
      expect(find).toHaveBeenCalledTimes(1);
      // A lookup is reused for a second: should the next request come later, it goes through the app once more.
      find.mockClear();
      for (const [what, headers, status] of revalidations(etag, stat.mtime.toUTCString())) {
        const answer = await get(urlPath, headers);
        expect([what, answer.status, answer.bodyBytes]).toEqual([what, status, status === 304 ? 0 : stat.size]);
      }
      expect(find.mock.calls.length).toBeLessThan(4);
    } finally {
      find.mockRestore();
    }
  });

  test('a transformation: 304 from the app (a result too big to keep in memory) and from the fast path (a hot one)', async () => {
    const answer = jest.spyOn(service('transforms'), 'answer');
    try {
      for (const [what, urlPath, viaApp] of [
        ['large', signed(large.url, { width: 1000, format: 'png' }), true],
        ['hot', signed(original.url, { width: 222, format: 'jpg' }), false],
      ] as const) {
        const first = await fetch(`${base}${urlPath}`);
        expect(first.status).toBe(200);
        const etag = first.headers.get('etag')!;
        const lastModified = first.headers.get('last-modified')!;
        const size = (await first.arrayBuffer()).byteLength;
        expect(size).toBeGreaterThan(0);
        answer.mockClear();
        for (const [how, headers, status] of revalidations(etag, lastModified)) {
          const again = await get(urlPath, headers);
          expect([what, how, again.status, again.etag, again.bodyBytes]).toEqual([what, how, status, etag, status === 304 ? 0 : size]);
        }
        if (viaApp) expect(answer).toHaveBeenCalledTimes(4);
        else expect(answer.mock.calls.length).toBeLessThan(4);
      }
    } finally {
      answer.mockRestore();
    }
  });
});
