'use strict';
/**
 * Animated GIFs of many frames, for the tests and the benchmarks, written here (GIF89a: a global
 * palette, the NETSCAPE2.0 loop block, then per frame a graphic control extension, an image
 * descriptor and LZW-coded pixels): sharp's encoder quantizes every frame, which takes minutes for
 * 10,000 of them. A few distinct frames are coded once and repeated, in turn, so that no two frames
 * in a row are alike (an encoder that skips what did not change gains nothing).
 */

/**
 * LZW as GIF codes it (codes packed LSB first, from `minSize` + 1 bits up to 12; a clear code when
 * the table is full), framed in sub-blocks of up to 255 bytes.
 */
function lzw(indices, minSize) {
  const CLEAR = 1 << minSize;
  const END = CLEAR + 1;
  const FIRST = CLEAR + 2;
  const out = [];
  let bits = 0;
  let acc = 0;
  let size = minSize + 1;
  const emit = (code) => {
    acc |= code << bits;
    bits += size;
    while (bits >= 8) {
      out.push(acc & 0xff);
      acc >>>= 8;
      bits -= 8;
    }
  };
  let table = new Map();
  let next = FIRST;
  emit(CLEAR);
  let prefix = indices[0];
  for (let i = 1; i < indices.length; i++) {
    const k = indices[i];
    const key = prefix * CLEAR + k;
    const found = table.get(key);
    if (found !== undefined) {
      prefix = found;
      continue;
    }
    emit(prefix);
    if (next === 4096) {
      emit(CLEAR);
      table = new Map();
      next = FIRST;
      size = minSize + 1;
    } else {
      table.set(key, next++);
      // The decoder widens its codes one code later than the encoder adds the entry.
      if (next - 1 === 1 << size && size < 12) size++;
    }
    prefix = k;
  }
  emit(prefix);
  emit(END);
  if (bits > 0) out.push(acc & 0xff);
  const data = Buffer.from(out);
  const blocks = [Buffer.from([minSize])];
  for (let at = 0; at < data.length; at += 255) {
    const part = data.subarray(at, at + 255);
    blocks.push(Buffer.from([part.length]), part);
  }
  blocks.push(Buffer.from([0]));
  return Buffer.concat(blocks);
}

/**
 * A picture of palette indices: squares of `block` pixels, each a colour of its own along a diagonal
 * gradient through the palette, shifted by `shift`. Smaller blocks compress less.
 */
function picture(width, height, shift, block, colors) {
  const indices = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) indices[y * width + x] = (Math.floor(x / block) * 3 + Math.floor(y / block) * 5 + shift * 3) % colors;
  }
  return indices;
}

/**
 * An animated GIF of `frames` frames of `width`×`height`, each shown `delayCs` hundredths of a second
 * (or `delaysCs[frame % length]`), looping for ever (or `loops` times more; null: no loop block, shown
 * once); `distinct` different pictures in turn, of squares of `block` pixels in 2^`colorBits` colours
 * (fewer colours and larger squares: smaller frames).
 */
function animatedGif({ width, height, frames, distinct = 8, delayCs = 4, delaysCs = null, loops = 0, block = 8, colorBits = 8 }) {
  const colors = 1 << colorBits;
  const head = Buffer.alloc(13);
  head.write('GIF89a', 0, 'latin1');
  head.writeUInt16LE(width, 6);
  head.writeUInt16LE(height, 8);
  // A global colour table of `colors` entries, 8 bits a primary.
  head[10] = 0xf0 | (colorBits - 1);
  const palette = Buffer.alloc(colors * 3);
  for (let i = 0; i < colors; i++) {
    const level = Math.round((i * 255) / (colors - 1));
    palette[i * 3] = level;
    palette[i * 3 + 1] = (level * 7) & 0xff;
    palette[i * 3 + 2] = 255 - level;
  }
  const loop = loops === null ? Buffer.alloc(0) : Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, loops & 0xff, loops >> 8, 0x00]);
  const control = (delay) => Buffer.from([0x21, 0xf9, 0x04, 0x04, delay & 0xff, delay >> 8, 0x00, 0x00]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  const coded = Array.from({ length: Math.min(distinct, frames) }, (_, f) =>
    Buffer.concat([descriptor, lzw(picture(width, height, f, block, colors), Math.max(2, colorBits))])
  );
  const parts = [head, palette, loop];
  for (let f = 0; f < frames; f++) parts.push(control(delaysCs ? delaysCs[f % delaysCs.length] : delayCs), coded[f % coded.length]);
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

module.exports = { animatedGif };
