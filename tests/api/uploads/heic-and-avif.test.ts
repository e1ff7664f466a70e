/**
 * What phones send (docs/api.md, "Images: limits and types"): HEIC, tiled into a grid and turned by the container, stored as an
 * upright JPEG; AVIF kept as AVIF; and every answer's placeholder and dominant colour.
 */
import fs from 'fs';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { heic, heicBomb, quadrants } from '../../../tools/support/images/heif';
import { binaryParser, expectPlaceholder, expectServedFiles, expectUploadJson, placeholderAverage } from '../../helpers/image-json';
import { PERSONAL_EXIF, png } from '../../helpers/fixtures';

const app = useApp();

const upload = (bytes: Buffer, filename: string) => app.upload(app.key, bytes, { filename });
const fetchBytes = async (url: string): Promise<Buffer> => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body;

/** The colour of the pixel at (x, y) of an image file, [r, g, b]. */
async function colourAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

/** Close to a pure colour: JPEG moves each channel a little. */
const near = (actual: number[], expected: number[]) => actual.every((value, i) => Math.abs(value - expected[i]) <= 24);

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

test('a 12 MP phone HEIC (48 tiles, turned a quarter by its container) is stored as an upright JPEG', async () => {
  // Stored landscape, turned clockwise on display (irot 3: three quarters counter-clockwise), as a portrait photo.
  const bytes = await heic({ width: 4032, height: 3024, rotate: 3 });
  const res = await upload(bytes, 'IMG_0042.HEIC');
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });
  expect(image.original_filename).toBe('IMG_0042.HEIC');
  expect(image.filename).toMatch(/\.jpg$/);
  expect([image.width, image.height]).toEqual([3024, 4032]);
  expect([image.bits, image.channels]).toEqual([8, 3]);
  const stored = await expectServedFiles(app, image);
  const meta = await sharp(stored).metadata();
  expect([meta.format, meta.orientation ?? 1, Boolean(meta.exif)]).toEqual(['jpeg', 1, false]);
  // Turned clockwise: the blue quadrant (bottom left) is top left now, red top right.
  const corners = await Promise.all([colourAt(stored, 100, 100), colourAt(stored, 2900, 100), colourAt(stored, 100, 3900), colourAt(stored, 2900, 3900)]);
  expect(corners.map((corner, i) => near(corner, [BLUE, RED, WHITE, GREEN][i]))).toEqual([true, true, true, true]);
  expect([image.medium.width, image.medium.height, image.medium.extension]).toEqual([500, 667, 'jpg']);
  expect([image.thumb.width, image.thumb.height]).toEqual([160, 160]);
  expect(near(await colourAt(await fetchBytes(image.medium.url), 20, 20), BLUE)).toBe(true);
});

test('a HEIC with personal EXIF: stripped by default; kept (orientation upright) and reported with keepExif', async () => {
  const exif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
    .jpeg()
    .withExif({ ...PERSONAL_EXIF, IFD0: { ...PERSONAL_EXIF.IFD0, Orientation: '6' } })
    .toBuffer()
    .then(async (jpeg) => (await sharp(jpeg).metadata()).exif!.subarray(6));
  const bytes = await heic({ width: 900, height: 600, exif });
  expect((await sharp(bytes, { unlimited: true }).metadata()).exif).toBeDefined();

  const plain = expectUploadJson((await upload(bytes, 'exif.heic')).body, { extension: 'jpg', mime: 'image/jpeg' });
  expect(plain.original_exifdata).toBeNull();
  expect((await sharp(await fetchBytes(plain.url)).metadata()).exif).toBeUndefined();

  app.strapi.config.set('plugin::image-api.keepExif', true);
  try {
    const res = await upload(bytes, 'exif.heic');
    expect(res.status).toBe(200);
    const kept = res.body.image;
    expect(kept.original_exifdata).toMatchObject({ Make: PERSONAL_EXIF.IFD0.Make });
    const stored = await sharp(await fetchBytes(kept.url)).metadata();
    expect([stored.width, stored.height, stored.orientation]).toEqual([900, 600, 1]);
    expect(stored.exif?.toString('latin1')).toContain(PERSONAL_EXIF.IFD0.Make);
  } finally {
    app.strapi.config.set('plugin::image-api.keepExif', false);
  }
});

test('AVIF is kept as sent, its variants AVIF too', async () => {
  const bytes = await sharp(await quadrants(1200, 800)).avif({ quality: 60 }).toBuffer();
  const res = await upload(bytes, 'photo.avif');
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'avif', mime: 'image/avif' });
  expect([image.width, image.height]).toEqual([1200, 800]);
  const stored = await fetchBytes(image.url);
  expect(stored.equals(bytes)).toBe(true);
  for (const variant of [image.medium, image.thumb]) {
    const served = await app.http.get(app.pathOf(variant.url)).buffer(true).parse(binaryParser);
    expect([served.status, served.headers['content-type']]).toEqual([200, 'image/avif']);
    const meta = await sharp(served.body).metadata();
    expect([meta.format, meta.compression, meta.width, meta.height]).toEqual(['heif', 'av1', variant.width, variant.height]);
  }
  expect([image.medium.width, image.medium.height]).toEqual([500, 333]);
  expect(near(await colourAt(await fetchBytes(image.medium.url), 10, 10), RED)).toBe(true);
});

test('placeholder and dominant colour describe the picture: a solid colour decodes back to itself', async () => {
  const solid = await sharp({ create: { width: 300, height: 150, channels: 3, background: '#3366cc' } }).png().toBuffer();
  const image = expectUploadJson((await upload(solid, 'solid.png')).body, { extension: 'png', mime: 'image/png' });
  expect(image.dominant_color).toMatch(/^#[23][0-9a-f]6[0-9a-f]c[0-9a-f]$/);
  expect(placeholderAverage(image.placeholder).every((value, i) => Math.abs(value - [0x33, 0x66, 0xcc][i]) <= 8)).toBe(true);
  // Recorded on the image record too.
  const row = await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).first('placeholder', 'dominant_color');
  expect(row).toEqual({ placeholder: image.placeholder, dominant_color: image.dominant_color });
});

test('images stored before placeholders existed get theirs once, in the background, from their medium', async () => {
  const solid = await sharp({ create: { width: 900, height: 300, channels: 3, background: '#cc3300' } }).jpeg().toBuffer();
  const images = [
    expectUploadJson((await upload(solid, 'old-1.jpg')).body, { extension: 'jpg', mime: 'image/jpeg' }),
    expectUploadJson((await upload(await sharp(await quadrants(600, 600)).png().toBuffer(), 'old-2.png')).body, { extension: 'png', mime: 'image/png' }),
  ];
  const ids = images.map((image) => image.id_encoded);
  const table = () => app.strapi.db.connection('image_api_images');
  await table().whereIn('id_encoded', ids).update({ placeholder: null, dominant_color: null });
  const store = app.strapi.store({ type: 'plugin', name: 'image-api', key: 'placeholders-filled' });
  expect(await store.get({})).toBe(true);
  await store.delete({});
  const placeholders = app.strapi.plugin('image-api').service('placeholders');
  placeholders.start();
  expect(await placeholders.settled()).toBe(2);
  const rows = await table().whereIn('id_encoded', ids).orderBy('id').select('placeholder', 'dominant_color');
  for (const [i, row] of rows.entries()) expectPlaceholder({ ...row, width: images[i].width, height: images[i].height });
  expect(rows[0].dominant_color).toMatch(/^#c[0-9a-f]3[0-9a-f]0[0-9a-f]$/);
  expect(await store.get({})).toBe(true);
  // Done once: the next boot's pass finds the flag and looks no further.
  await table().whereIn('id_encoded', ids).update({ placeholder: null });
  placeholders.start();
  expect(await placeholders.settled()).toBe(0);
});

test('a HEIC bomb (one tile named by 900 cells: 236 MP declared in 30 KB) is refused from its header: 413/315, nothing left', async () => {
  const bomb = await heicBomb(30, 30);
  const before = new Set(fs.readdirSync(app.uploadsDir));
  const res = await upload(bomb, 'bomb.heic');
  expect([res.status, res.body.error]).toEqual([413, { code: 315, message: 'Image too large - max 100 megapixels' }]);
  expect(fs.readdirSync(app.uploadsDir).filter((f) => !before.has(f))).toEqual([]);
});

test('a HEIC whose coded data is damaged: 400/311, nothing left', async () => {
  const bytes = Buffer.from(await heic({ width: 1024, height: 1024 }));
  // Overwrite the middle of the mdat (the tiles' HEVC data) with zeros.
  bytes.fill(0, bytes.length - 1500, bytes.length - 200);
  const before = new Set(fs.readdirSync(app.uploadsDir));
  const res = await upload(bytes, 'broken.heic');
  expect([res.status, res.body.error?.code]).toEqual([400, 311]);
  expect(fs.readdirSync(app.uploadsDir).filter((f) => !before.has(f))).toEqual([]);
});

test('an operator who leaves HEIC out of allowedTypes gets 415/314 for it', async () => {
  const allowed = app.strapi.config.get('plugin::image-api.allowedTypes') as string[];
  app.strapi.config.set('plugin::image-api.allowedTypes', allowed.filter((type) => type !== 'heic'));
  try {
    const res = await upload(await heic({ width: 600, height: 400 }), 'a.heic');
    expect([res.status, res.body.error]).toEqual([415, { code: 314, message: 'Disabled image format (heic): this service accepts jpg, png, gif, webp, bmp, avif' }]);
    expect((await upload(await png(8, 8), 'a.png')).status).toBe(200);
  } finally {
    app.strapi.config.set('plugin::image-api.allowedTypes', allowed);
  }
});
