/** GPS and other personal metadata never reach a stored file, unless the operator keeps it. */
import exifr from 'exifr';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { jpeg, PERSONAL_EXIF, withPersonalExif } from '../../helpers/fixtures';
import { binaryParser } from '../../helpers/image-json';

const app = useApp();

const upload = (bytes: Buffer, filename: string) => app.upload(app.key, bytes, { filename });
const fetchBytes = async (url: string): Promise<Buffer> => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body;
const pixels = async (bytes: Buffer) => (await sharp(bytes).raw().toBuffer()).toString('base64');

async function expectNoPersonalMetadata(bytes: Buffer) {
  const meta = await sharp(bytes).metadata();
  expect(meta.exif).toBeUndefined();
  expect(meta.xmp).toBeUndefined();
  expect(meta.iptc).toBeUndefined();
  expect(bytes.includes(Buffer.from('Jane Doe'))).toBe(false);
  expect(bytes.includes(Buffer.from('PhoneCo'))).toBe(false);
}

describe('by default, metadata is removed from every stored file', () => {
  test.each(['jpeg', 'png', 'webp'] as const)('%s', async (format) => {
    const received = await withPersonalExif(format);
    expect(await sharp(received).metadata()).toHaveProperty('exif');
    const res = await upload(received, `photo.${format}`);
    expect(res.status).toBe(200);
    expect(res.body.image.original_exifdata).toBeNull();
    for (const url of [res.body.image.url, res.body.image.thumb.url, res.body.image.medium.url]) {
      await expectNoPersonalMetadata(await fetchBytes(url));
    }
    const stored = await fetchBytes(res.body.image.url);
    expect(stored.length).toBe(res.body.image.size);
    if (format !== 'webp') {
      // JPEG and PNG are cleaned losslessly: the same pixels, a few bytes less.
      expect(await pixels(stored)).toBe(await pixels(received));
      expect(stored.length).toBeLessThan(received.length);
    }
  });

  test('a rotated photo with GPS: upright, and no GPS', async () => {
    const received = await sharp(await jpeg(300, 200)).withMetadata({ orientation: 6 }).withExifMerge(PERSONAL_EXIF).toBuffer();
    expect(received.includes(Buffer.from('Jane Doe'))).toBe(true);
    expect((await sharp(received).metadata()).orientation).toBe(6);
    const res = await upload(received, 'rotated.jpg');
    expect([res.body.image.width, res.body.image.height]).toEqual([200, 300]);
    const stored = await fetchBytes(res.body.image.url);
    await expectNoPersonalMetadata(stored);
    expect([(await sharp(stored).metadata()).width, (await sharp(stored).metadata()).height]).toEqual([200, 300]);
  });

  test('an image without metadata is stored byte for byte', async () => {
    const received = await jpeg(200, 100);
    const res = await upload(received, 'plain.jpg');
    expect((await fetchBytes(res.body.image.url)).equals(received)).toBe(true);
  });
});

describe('keepExif keeps it, and reports what was received', () => {
  beforeAll(() => app.strapi.config.set('plugin::image-api.keepExif', true));
  afterAll(() => app.strapi.config.set('plugin::image-api.keepExif', false));

  test('original_exifdata has the GPS position and camera; the stored original keeps them', async () => {
    const received = await withPersonalExif('jpeg');
    const res = await upload(received, 'kept.jpg');
    expect(res.status).toBe(200);
    const exif = res.body.image.original_exifdata;
    expect(exif).toMatchObject({ Make: 'PhoneCo', Model: 'Phone 9', Artist: 'Jane Doe' });
    expect(exif.latitude).toBeCloseTo(48.8582, 3);
    expect(exif.longitude).toBeCloseTo(2.2945, 3);
    const stored = await fetchBytes(res.body.image.url);
    expect(stored.equals(received)).toBe(true);
    expect((await exifr.gps(stored)).latitude).toBeCloseTo(48.8582, 3);
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: res.body.image.id_encoded } });
    expect(record.original_exifdata).toMatchObject({ Artist: 'Jane Doe' });
  });

  test('an image without EXIF reports null', async () => {
    const res = await upload(await jpeg(50, 50), 'none.jpg');
    expect(res.body.image.original_exifdata).toBeNull();
  });
});
