// Deterministic bench images, synthesized with sharp (no downloads): smooth photographic gradients
// with seeded grain, tuned to the sizes of the reference files.
'use strict';

const fs = require('fs');
const path = require('path');
const sharp = require('sharp');
const { heic } = require('../support/images/heif');

/** `grainedWidth`: the fraction of columns with grain (a screenshot is mostly flat). */
function grainy(width, height, seed, grain, grainedWidth = 1) {
  const data = Buffer.alloc(width * height * 3);
  let s = seed >>> 0 || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const noise = x < width * grainedWidth ? ((s & 0xff) - 128) * grain : 0;
      const i = (y * width + x) * 3;
      const u = x / width;
      const v = y / height;
      data[i] = Math.max(0, Math.min(255, 120 + 90 * Math.sin(6 * u + 2 * v) + noise));
      data[i + 1] = Math.max(0, Math.min(255, 110 + 80 * Math.cos(5 * v - 3 * u) + noise));
      data[i + 2] = Math.max(0, Math.min(255, 100 + 70 * Math.sin(9 * u * v + 1) + noise));
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

const FIXTURES = {
  'jpeg-12mp': { make: () => grainy(4000, 3000, 1, 0.1).jpeg({ quality: 88 }), file: 'photo-12mp.jpg', type: 'image/jpeg' },
  'jpeg-1.7mp': { make: () => grainy(1600, 1067, 2, 0.09).jpeg({ quality: 88 }), file: 'photo-1600.jpg', type: 'image/jpeg' },
  'png-800': { make: () => grainy(800, 447, 3, 0.02, 0.22).png(), file: 'screenshot-800.png', type: 'image/png' },
  'jpeg-50mp': { make: () => grainy(8660, 5774, 4, 0.03).jpeg({ quality: 85 }), file: 'photo-50mp.jpg', type: 'image/jpeg' },
  // A phone's photo: 4032×3024 in 48 HEVC tiles (heif-enc, from libheif-examples), about 1.5 MB.
  'heic-12mp': {
    // Display P3 stated as nclx code points, as iPhones state it (and what heif-convert's path needs).
    bytes: async () =>
      heic({
        width: 4032,
        height: 3024,
        quality: 60,
        picture: await grainy(4032, 3024, 5, 0.1).png({ compressionLevel: 1 }).toBuffer(),
        colour: { nclx: { primaries: 12, transfer: 13, matrix: 6, fullRange: true } },
      }),
    file: 'photo-12mp-p3.heic',
    type: 'image/heic',
  },
  'avif-12mp': { make: () => grainy(4000, 3000, 6, 0.1).avif({ quality: 60, effort: 2 }), file: 'photo-12mp.avif', type: 'image/avif' },
};

async function loadFixtures(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const out = {};
  for (const [name, spec] of Object.entries(FIXTURES)) {
    const file = path.join(dir, spec.file);
    if (!fs.existsSync(file)) {
      if (spec.bytes) fs.writeFileSync(file, await spec.bytes());
      else await spec.make().toFile(file);
    }
    const bytes = fs.readFileSync(file);
    const meta = await sharp(bytes, { unlimited: true }).metadata();
    out[name] = { name, file: spec.file, type: spec.type, bytes, width: meta.width, height: meta.height };
  }
  return out;
}

module.exports = { loadFixtures };

if (require.main === module) {
  loadFixtures(path.join(__dirname, 'out', 'fixtures')).then((f) => {
    for (const x of Object.values(f)) console.log(x.name, `${x.width}x${x.height}`, `${(x.bytes.length / 1e6).toFixed(2)} MB`);
  });
}
