/**
 * Test images, synthesized deterministically (no downloads): gradients with a pattern, so resizes
 * and crops give stable, checkable results.
 */
import sharp from 'sharp';

/** Raw RGB(A) pixels: a red/green gradient with an XOR pattern in blue. */
export function pixels(width: number, height: number, channels: 3 | 4 = 3): Buffer {
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      data[i] = Math.floor((x * 255) / Math.max(1, width - 1));
      data[i + 1] = Math.floor((y * 255) / Math.max(1, height - 1));
      data[i + 2] = (x ^ y) & 0xff;
      if (channels === 4) data[i + 3] = 200;
    }
  }
  return data;
}

const raw = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp(pixels(width, height, channels), { raw: { width, height, channels } });

export const jpeg = (width: number, height: number, quality = 90) => raw(width, height).jpeg({ quality }).toBuffer();
export const png = (width: number, height: number, alpha = false) => raw(width, height, alpha ? 4 : 3).png().toBuffer();
export const webp = (width: number, height: number) => raw(width, height).webp({ quality: 80 }).toBuffer();
export const gif = (width: number, height: number) => raw(width, height).gif().toBuffer();

/** A JPEG whose EXIF orientation says "rotate 90° clockwise to display" (6): stored 300×200, shown 200×300. */
export const rotatedJpeg = () => raw(300, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();

/** An animated GIF (or WEBP) of `frames` frames. */
export async function animated(width: number, height: number, frames: number, format: 'gif' | 'webp' = 'gif') {
  const stills = await Promise.all(
    Array.from({ length: frames }, (_, f) =>
      sharp(pixels(width, height).map((v, i) => (i % 3 === 2 ? (v + f * 60) & 0xff : v)), {
        raw: { width, height, channels: 3 },
      })
        .png()
        .toBuffer()
    )
  );
  const joined = sharp(stills, { join: { animated: true } });
  return format === 'gif' ? joined.gif({ delay: 100, loop: 0 }).toBuffer() : joined.webp({ delay: 100, loop: 0 }).toBuffer();
}

/**
 * A bottom-up BMP of `depth` bits a pixel: 1, 4 or 8 with a full palette (1-bit: black and white), or
 * 32; its pixel bytes from a seed. An 8800×8800 1-bit one is 9.7 MB and 77 MP, under both limits.
 */
export function bmpOfDepth(width: number, height: number, depth: 1 | 4 | 8 | 32): Buffer {
  const colors = depth <= 8 ? 2 ** depth : 0;
  const raw = (width * depth) / 8;
  const stride = raw % 4 ? raw + 4 - (raw % 4) : raw;
  const head = 14 + 40 + colors * 4;
  const file = Buffer.alloc(head + stride * height);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(head, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(depth, 28);
  for (let i = 0; i < colors; i++) file.writeUInt32LE(depth === 1 ? i * 0xffffff : (i * 0x10305) & 0xffffff, 54 + i * 4);
  for (let i = head; i < file.length; i++) file[i] = (i * 2654435761) >>> 24;
  return file;
}

/** A 24-bit bottom-up BMP (sharp cannot write BMP). */
export function bmp(width: number, height: number): Buffer {
  const rowSize = Math.ceil((width * 3) / 4) * 4;
  const dataSize = rowSize * height;
  const file = Buffer.alloc(54 + dataSize);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(54 + dataSize, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(24, 28);
  file.writeUInt32LE(dataSize, 34);
  const rgb = pixels(width, height);
  for (let y = 0; y < height; y++) {
    const row = 54 + (height - 1 - y) * rowSize;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      file[row + x * 3] = rgb[i + 2];
      file[row + x * 3 + 1] = rgb[i + 1];
      file[row + x * 3 + 2] = rgb[i];
    }
  }
  return file;
}

export const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
export const html = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
export const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
export const tiff = () => raw(20, 20).tiff().toBuffer();

/** Deterministic pseudo-random bytes (xorshift). */
export function randomBytes(length: number, seed = 42): Buffer {
  const out = Buffer.alloc(length);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s & 0xff;
  }
  return out;
}

/** EXIF a phone would write: who, what device, and where (the Eiffel Tower). */
export const PERSONAL_EXIF = {
  IFD0: { Make: 'PhoneCo', Model: 'Phone 9', Artist: 'Jane Doe' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4020/100' },
};

/** An image of `format` carrying PERSONAL_EXIF (and, for JPEG, optionally an orientation). */
export const withPersonalExif = (format: 'jpeg' | 'png' | 'webp', width = 120, height = 80) =>
  raw(width, height)[format]().withExif(PERSONAL_EXIF).toBuffer();
