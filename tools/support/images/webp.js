'use strict';
/**
 * Animated WebPs of many frames, for the tests and the benchmarks: sharp encodes a few distinct
 * frames once, and their ANMF chunks are repeated, in turn, in a RIFF container assembled here (VP8X,
 * ANIM, the frames, then an EXIF chunk if asked), as sharp's encoder would take seconds per thousand
 * frames.
 */
const sharp = require('sharp');

/** The chunks of a RIFF WEBP file: fourcc and payload. */
function chunks(file) {
  const found = [];
  for (let at = 12; at + 8 <= file.length; ) {
    const size = file.readUInt32LE(at + 4);
    found.push({ type: file.toString('latin1', at, at + 4), payload: file.subarray(at + 8, at + 8 + size) });
    at += 8 + size + (size & 1);
  }
  return found;
}

function chunk(type, payload) {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(payload.length, 4);
  return Buffer.concat([head, payload, payload.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A frame's picture: coloured squares of `block` pixels, shifted by `shift`. */
function picture(width, height, shift, block) {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const cell = Math.floor(x / block) * 3 + Math.floor(y / block) * 5 + shift * 7;
      data[i] = (cell * 37) & 0xff;
      data[i + 1] = (cell * 91) & 0xff;
      data[i + 2] = (cell * 53) & 0xff;
    }
  }
  return data;
}

/**
 * An animated WebP of `frames` frames of `width`×`height`, `delayMs` each (or `delaysMs[frame %
 * length]`), looping for ever (or `loops` times); `distinct` different pictures in turn, lossy
 * (`quality`) or `lossless`; `exif`: a TIFF-structured EXIF block to carry in an EXIF chunk.
 */
async function animatedWebp({ width, height, frames, distinct = 4, block = 8, delayMs = 40, delaysMs = null, loops = 0, lossless = false, quality = 80, exif = null }) {
  const count = Math.min(distinct, frames);
  const stills = Array.from({ length: count }, (_, f) => sharp(picture(width, height, f, block), { raw: { width, height, channels: 3 } }).png().toBuffer());
  const encoded = await sharp(await Promise.all(stills), { join: { animated: true } })
    .webp({ lossless, quality, delay: delayMs, loop: 0, minSize: false })
    .toBuffer();
  const parts = chunks(encoded);
  const coded = parts.filter((part) => part.type === 'ANMF');
  const vp8x = Buffer.from(parts.find((part) => part.type === 'VP8X').payload);
  // Flags: animation (bit 1), and EXIF (bit 3) when there is some.
  vp8x[0] = (vp8x[0] | 0x02 | (exif ? 0x08 : 0)) & ~0x04 & ~0x20;
  const anim = Buffer.from(parts.find((part) => part.type === 'ANIM').payload);
  // Background colour (4 bytes), then the loop count (0: for ever).
  anim.writeUInt16LE(loops, 4);
  const body = [chunk('VP8X', vp8x), chunk('ANIM', anim)];
  for (let f = 0; f < frames; f++) {
    // Each frame's duration: 24 bits at 12 of its ANMF payload.
    const frame = Buffer.from(coded[f % coded.length].payload);
    frame.writeUIntLE(delaysMs ? delaysMs[f % delaysMs.length] : delayMs, 12, 3);
    body.push(chunk('ANMF', frame));
  }
  if (exif) body.push(chunk('EXIF', exif));
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.write('WEBP', 8, 'latin1');
  const file = Buffer.concat([riff, ...body]);
  file.writeUInt32LE(file.length - 8, 4);
  return file;
}

module.exports = { animatedWebp, webpChunks: chunks };
