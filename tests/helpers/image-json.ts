/** Assertions on the image JSON (docs/api.md, "The image object"): every field, in order, with its type. */
import crypto from 'crypto';
import sharp from 'sharp';
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA, thumbHashToRGBA } from 'thumbhash';
import type { TestApp } from './app';

export const IMAGE_FIELDS = [
  'name', 'extension', 'size', 'width', 'height', 'date', 'date_gmt', 'storage_id', 'description', 'nsfw',
  'md5', 'storage', 'original_filename', 'original_exifdata', 'views', 'id_encoded', 'filename', 'ratio',
  'size_formatted', 'mime', 'bits', 'channels', 'url', 'url_viewer', 'thumb', 'medium', 'views_label',
  'display_url', 'how_long_ago',
];
/** What tests read of an upload's answer (`image`): its names and its URLs. */
export interface UploadedImage {
  id_encoded: string;
  name: string;
  url: string;
  url_viewer: string;
  delete_url: string;
  thumb: { url: string };
  medium: { url: string };
}

/** Ours, after the document's fields. */
export const EXTRA_FIELDS = ['title', 'delete_url', 'expiration_date_gmt', 'placeholder', 'dominant_color', 'moderation'];
export const VARIANT_FIELDS = [
  'filename', 'name', 'width', 'height', 'ratio', 'size', 'size_formatted', 'mime', 'extension', 'bits',
  'channels', 'url',
];

const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const SIZE_FORMATTED = /^\d+(\.\d)? (B|KB|MB|GB)$/;

function expectVariant(variant: Record<string, unknown>, name: string, suffix: string, extension: string, mime: string) {
  expect(Object.keys(variant)).toEqual(VARIANT_FIELDS);
  expect(variant.name).toBe(`${name}.${suffix}`);
  expect(variant.filename).toBe(`${name}.${suffix}.${extension}`);
  expect(variant.extension).toBe(extension);
  expect(variant.mime).toBe(mime);
  for (const field of ['width', 'height', 'size', 'bits']) expect(Number.isInteger(variant[field])).toBe(true);
  expect(typeof variant.ratio).toBe('number');
  expect(variant.ratio).toBeCloseTo((variant.width as number) / (variant.height as number), 10);
  expect(variant.size_formatted).toMatch(SIZE_FORMATTED);
  expect(variant.url).toBe(`http://img.test:1337/uploads/${variant.filename}`);
}

/** Checks the envelope and every field's type; returns the image object. */
export function expectUploadJson(body: any, expected: { extension: string; mime: string }) {
  expect(Object.keys(body)).toEqual(['status_code', 'success', 'image', 'status_txt']);
  expect(body.status_code).toBe(200);
  expect(body.success).toEqual({ message: 'image uploaded', code: 200 });
  expect(body.status_txt).toBe('OK');

  const image = body.image;
  expect(Object.keys(image)).toEqual([...IMAGE_FIELDS, ...EXTRA_FIELDS]);
  expect(typeof image.name).toBe('string');
  expect(image.name).toMatch(/^[a-z0-9-]*[A-Za-z0-9]+$/i);
  expect(image.extension).toBe(expected.extension);
  expect(image.mime).toBe(expected.mime);
  for (const field of ['size', 'width', 'height', 'bits']) expect(Number.isInteger(image[field])).toBe(true);
  expect(image.date).toMatch(DATE);
  expect(image.date_gmt).toMatch(DATE);
  expect(image.storage_id).toBeNull();
  expect(image.nsfw).toMatch(/^[01]$/);
  expect(image.md5).toMatch(/^[0-9a-f]{32}$/);
  expect(image.storage).toBe('local');
  expect(typeof image.original_filename).toBe('string');
  expect(image.original_exifdata).toBeNull();
  expect(image.views).toBe('0');
  expect(image.views_label).toBe('views');
  expect(image.id_encoded).toMatch(/^[A-Za-z0-9]{1,12}$/);
  expect(image.filename).toBe(`${image.name}.${image.extension}`);
  expect(typeof image.ratio).toBe('number');
  expect(image.ratio).toBeCloseTo(image.width / image.height, 10);
  expect(image.size_formatted).toMatch(SIZE_FORMATTED);
  expect(image.url).toBe(`http://img.test:1337/uploads/${image.filename}`);
  expect(image.url_viewer).toBe(`http://img.test:1337/image/${image.id_encoded}`);
  expect(image.display_url).toBe(image.medium.url);
  expect(image.how_long_ago).toBe('moments ago');
  expect(image.delete_url).toMatch(new RegExp(`^${image.url_viewer}/delete/[A-Za-z0-9]{32,}$`));
  if (image.expiration_date_gmt !== null) expect(image.expiration_date_gmt).toMatch(DATE);
  expectPlaceholder(image);
  expectVariant(image.thumb, image.name, 'th', image.extension, image.mime);
  expectVariant(image.medium, image.name, 'md', image.extension, image.mime);
  return image;
}

/**
 * The placeholder decodes (thumbhash's own decoder) to a picture of the image's shape (ThumbHash
 * keeps the aspect ratio roughly: within 20 %), and the dominant colour is `#rrggbb`.
 */
export function expectPlaceholder(image: { placeholder: unknown; dominant_color: unknown; width: number; height: number }) {
  expect(typeof image.placeholder).toBe('string');
  expect(image.placeholder).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  const hash = Buffer.from(image.placeholder as string, 'base64');
  expect(hash.length).toBeGreaterThanOrEqual(5);
  expect(hash.length).toBeLessThanOrEqual(25);
  const decoded = thumbHashToRGBA(hash);
  expect(decoded.rgba.length).toBe(decoded.w * decoded.h * 4);
  const ratio = image.width / image.height;
  if (ratio > 0.25 && ratio < 4) expect(thumbHashToApproximateAspectRatio(hash) / ratio).toBeCloseTo(1, 0);
  expect(image.dominant_color).toMatch(/^#[0-9a-f]{6}$/);
}

/** The placeholder's average colour, [r, g, b] in 0..255. */
export function placeholderAverage(placeholder: string): number[] {
  const { r, g, b } = thumbHashToAverageRGBA(Buffer.from(placeholder, 'base64'));
  return [r, g, b].map((value) => Math.round(value * 255));
}

/** Fetches the original and both variants and checks bytes, md5, sizes and real dimensions. */
export async function expectServedFiles(app: TestApp, image: any) {
  const original = await app.http.get(app.pathOf(image.url)).buffer(true).parse(binaryParser);
  expect(original.status).toBe(200);
  expect(original.headers['content-type']).toBe(image.mime);
  expect(original.body.length).toBe(image.size);
  expect(crypto.createHash('md5').update(original.body).digest('hex')).toBe(image.md5);
  const meta = await sharp(original.body).metadata();
  expect(meta.autoOrient.width).toBe(image.width);
  expect(meta.autoOrient.height).toBe(image.height);

  for (const variant of [image.thumb, image.medium]) {
    const res = await app.http.get(app.pathOf(variant.url)).buffer(true).parse(binaryParser);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(variant.size);
    const m = await sharp(res.body).metadata();
    expect([m.width, m.height]).toEqual([variant.width, variant.height]);
  }
  return original.body as Buffer;
}

export function binaryParser(res: any, callback: (err: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}
