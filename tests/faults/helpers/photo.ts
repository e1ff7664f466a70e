/**
 * A 12 MP JPEG the size of a camera's (about 4.3 MB): noise compresses as a photo does, where the
 * gradient fixtures would shrink to a fraction of that.
 */
import sharp from 'sharp';
import { heic } from '../../../tools/support/images/heif';

export const photo12mp = () =>
  sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 120, g: 140, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 20 } } })
    .jpeg({ quality: 85 })
    .toBuffer();

/** A phone's 12 MP HEIC: 4032×3024 in 48 HEVC tiles, of noise (a photo's cost to decode, not a flat picture's). */
export const heic12mp = async () =>
  heic({
    width: 4032,
    height: 3024,
    quality: 50,
    picture: await sharp({ create: { width: 4032, height: 3024, channels: 3, background: { r: 120, g: 140, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 20 } } })
      .png({ compressionLevel: 1 })
      .toBuffer(),
    // Display P3 as nclx, as iPhones state it: heif-convert decodes it where installed.
    colour: { nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } },
  });
