// a, the floor: the bare pipeline any image host must run at least, in the bench process: md5,
// metadata, write the original, a 160×160 cover thumb and a 500-wide medium, with sharp. A HEIC is
// decoded first (libheif's WebAssembly build, as the API does, but on this thread) and its original
// written as a JPEG; an AVIF's variants are AVIF, with the API's encoder settings.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const sharp = require('sharp');

/** The API's AVIF settings for variants, read from the built plugin (the bench builds it first). */
const avifVariants = () => {
  const { AVIF_UPLOAD } = require('../../plugins/image-api/dist/server/src/images/image-variants');
  return { quality: AVIF_UPLOAD.quality, effort: AVIF_UPLOAD.effort };
};
const EXTENSION = { 'image/png': 'png', 'image/avif': 'avif', 'image/heic': 'jpg' };

let libheif = null;
/** libheif-js, loaded once (its own `wasm.js` reads the binary from the working directory). */
function heifDecoder() {
  if (!libheif) {
    const wasmBinary = fs.readFileSync(require.resolve('libheif-js/libheif-wasm/libheif.wasm'));
    libheif = require('libheif-js/libheif-wasm/libheif.js')({ wasmBinary });
  }
  return new libheif.HeifDecoder();
}

/** A HEIC's primary image as RGBA pixels. */
async function heicPixels(bytes) {
  const images = heifDecoder().decode(bytes);
  try {
    const image = images.find((candidate) => candidate.is_primary()) ?? images[0];
    const [width, height] = [image.get_width(), image.get_height()];
    const data = new Uint8ClampedArray(width * height * 4);
    await new Promise((resolve, reject) => image.display({ data, width, height }, (done) => (done ? resolve() : reject(new Error('HEIC decode failed')))));
    return { pixels: Buffer.from(data.buffer), width, height };
  } finally {
    for (const image of images) image.free();
  }
}

async function floorPipeline(fixture, dir) {
  const bytes = fixture.bytes;
  const id = crypto.randomBytes(6).toString('hex');
  const ext = EXTENSION[fixture.type] ?? 'jpg';
  crypto.createHash('md5').update(bytes).digest('hex');
  await sharp(bytes, { unlimited: true }).metadata();
  // The same encoder settings as the API (JPEG quality 85; PNG defaults: `quality` would quantize).
  const encode = (pipeline) => (ext === 'png' ? pipeline.png() : ext === 'avif' ? pipeline.avif(avifVariants()) : pipeline.jpeg({ quality: 85 }));
  let open = () => sharp(bytes, { unlimited: true });
  let original = bytes;
  if (fixture.type === 'image/heic') {
    const { pixels, width, height } = await heicPixels(bytes);
    open = () => sharp(pixels, { raw: { width, height, channels: 4 } }).removeAlpha();
    original = await open().jpeg({ quality: 92 }).toBuffer();
  }
  const [thumb, medium] = await Promise.all([
    encode(open().resize(160, 160, { fit: 'cover' })).toBuffer(),
    encode(open().resize({ width: 500, withoutEnlargement: true })).toBuffer(),
    fs.promises.writeFile(path.join(dir, `${id}.${ext}`), original),
  ]);
  await Promise.all([
    fs.promises.writeFile(path.join(dir, `${id}.th.${ext}`), thumb),
    fs.promises.writeFile(path.join(dir, `${id}.md.${ext}`), medium),
  ]);
  return medium;
}

module.exports = { floorPipeline };
