/** Each accepted type, and what the stored original and its variants become. */
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { animated, bmp, bmpOfDepth, gif, jpeg, png, rotatedJpeg, webp } from '../../helpers/fixtures';
import { binaryParser, expectServedFiles, expectUploadJson } from '../../helpers/image-json';
import { readAnimation } from '../../helpers/animation';

const app = useApp();

const upload = (bytes: Buffer, filename: string) => app.upload(app.key, bytes, { filename, keyIn: 'field' });

const fetchBytes = async (url: string): Promise<Buffer> =>
  (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body;

test.each([
  ['JPEG', () => jpeg(800, 600), 'jpg', 'image/jpeg'],
  ['PNG', () => png(800, 600), 'png', 'image/png'],
  ['GIF', () => gif(800, 600), 'gif', 'image/gif'],
  ['WEBP', () => webp(800, 600), 'webp', 'image/webp'],
])('%s keeps its format and bytes', async (_label, make, extension, mime) => {
  const bytes = await make();
  const res = await upload(bytes, `picture.${extension}`);
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension, mime });
  expect([image.width, image.height]).toEqual([800, 600]);
  const served = await expectServedFiles(app, image);
  expect(served.equals(bytes)).toBe(true);
  expect([image.medium.width, image.medium.height]).toEqual([500, 375]);
});

test('BMP is stored as PNG with the same pixels', async () => {
  const bytes = bmp(321, 123);
  const res = await upload(bytes, 'scan.bmp');
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
  expect(image.filename).toMatch(/^scan-[A-Za-z0-9]+\.png$/);
  expect(image.original_filename).toBe('scan.bmp');
  // Its Media Library entry is named for what is stored.
  const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
  expect([file.name, file.ext, file.mime]).toEqual(['scan.png', '.png', 'image/png']);
  expect([image.width, image.height]).toEqual([321, 123]);
  const stored = await expectServedFiles(app, image);
  const { data, info } = await sharp(stored).raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(3);
  // Pixel (10, 20) as bmp() drew it: R = x gradient, G = y gradient, B = x ^ y.
  const i = (20 * 321 + 10) * 3;
  expect([data[i], data[i + 1], data[i + 2]]).toEqual([Math.floor((10 * 255) / 320), Math.floor((20 * 255) / 122), 10 ^ 20]);
});

test('a 1-bit BMP (a scanned page) is stored as a 1-bit palette PNG, no bigger than the BMP: nothing stored passes maxBytes', async () => {
  const bytes = bmpOfDepth(2400, 1600, 1);
  const res = await upload(bytes, 'page.bmp');
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
  expect([image.width, image.height, image.channels]).toEqual([2400, 1600, 3]);
  const stored = await expectServedFiles(app, image);
  // As RGB this PNG was 1.8 times the BMP: a 9.7 MB BMP of 8800×8800 made a 17 MB file.
  expect(stored.length).toBeLessThanOrEqual(bytes.length + 1600 + 1024);
  expect(await sharp(stored).metadata()).toMatchObject({ format: 'png', isPalette: true, bitsPerSample: 1, width: 2400, height: 1600 });
});

test.each(['gif', 'webp'] as const)('an animated %s keeps every frame, in its variants too (tests/api/uploads/animations.test.ts)', async (format) => {
  const bytes = await animated(200, 150, 4, format);
  const res = await upload(bytes, `anim.${format}`);
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: format, mime: `image/${format}` });
  expect([image.width, image.height]).toEqual([200, 150]);
  const stored = await fetchBytes(image.url);
  expect(stored.equals(bytes)).toBe(true);
  expect(readAnimation(stored).frames).toBe(4);
  const thumb = readAnimation(await fetchBytes(image.thumb.url));
  expect([thumb.format, thumb.width, thumb.height, thumb.frames]).toEqual([format, 160, 160, 4]);
  expect([image.medium.width, image.medium.height]).toEqual([200, 150]);
  expect(readAnimation(await fetchBytes(image.medium.url)).frames).toBe(4);
});

test('an EXIF-rotated JPEG is stored upright', async () => {
  const bytes = await rotatedJpeg();
  expect((await sharp(bytes).metadata()).orientation).toBe(6);
  const res = await upload(bytes, 'phone.jpg');
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });
  expect([image.width, image.height]).toEqual([200, 300]);
  const stored = await expectServedFiles(app, image);
  const meta = await sharp(stored).metadata();
  expect([meta.width, meta.height]).toEqual([200, 300]);
  expect(meta.orientation ?? 1).toBe(1);
  expect([image.medium.width, image.medium.height]).toEqual([200, 300]);
});

test('variants: a small image gives a scaled-up 160×160 thumb and a medium at its own size', async () => {
  const res = await upload(await png(40, 20), 'tiny.png');
  const image = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
  expect([image.thumb.width, image.thumb.height]).toEqual([160, 160]);
  expect([image.medium.width, image.medium.height]).toEqual([40, 20]);
  await expectServedFiles(app, image);
});

test('the thumb is a centre crop', async () => {
  // Left half black, right half white, 400×200: the centre crop keeps both halves equally.
  const raw = Buffer.alloc(400 * 200 * 3);
  for (let y = 0; y < 200; y++) raw.fill(255, (y * 400 + 200) * 3, (y * 400 + 400) * 3);
  const bytes = await sharp(raw, { raw: { width: 400, height: 200, channels: 3 } }).png().toBuffer();
  const res = await upload(bytes, 'halves.png');
  const thumb = await fetchBytes(res.body.image.thumb.url);
  const { data } = await sharp(thumb).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => data[(y * 160 + x) * 3];
  expect(at(10, 80)).toBeLessThan(20);
  expect(at(150, 80)).toBeGreaterThan(235);
  expect(at(76, 80)).toBeLessThan(128);
  expect(at(84, 80)).toBeGreaterThan(128);
});
