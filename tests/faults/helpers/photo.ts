/**
 * A 12 MP JPEG the size of a camera's (about 4.3 MB): noise compresses as a photo does, where the
 * gradient fixtures would shrink to a fraction of that.
 */
import sharp from 'sharp';

export const photo12mp = () =>
  sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 120, g: 140, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 20 } } })
    .jpeg({ quality: 85 })
    .toBuffer();
