/**
 * What a stored file holds, read by the tests from its bytes (not from sharp, which reports a GIF's
 * index size as its bits): bits per channel, channels (alpha or declared transparency counted), and
 * for a PNG its colour type.
 */
export interface StoredLayout {
  format: 'png' | 'gif' | 'jpeg' | 'webp';
  bits: number;
  channels: number;
  /** PNG colour type (0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA). */
  pngColourType?: number;
  /** WebP: coded by VP8L. */
  lossless?: boolean;
}

export function storedLayout(bytes: Buffer): StoredLayout {
  if (bytes.toString('latin1', 1, 4) === 'PNG') {
    const [depth, colourType] = [bytes[24], bytes[25]];
    const idat = bytes.indexOf('IDAT', 0, 'latin1');
    const trns = bytes.indexOf('tRNS', 0, 'latin1');
    const transparency = trns > 0 && trns < idat ? 1 : 0;
    const channels = { 0: 1 + transparency, 2: 3 + transparency, 3: 3 + transparency, 4: 2, 6: 4 }[colourType]!;
    return { format: 'png', bits: colourType === 3 ? 8 : depth, channels, pngColourType: colourType };
  }
  if (bytes.toString('latin1', 0, 3) === 'GIF') {
    // Any graphic control extension (21 F9 04) whose packed byte declares a transparent index.
    let transparent = false;
    for (let at = bytes.indexOf(Buffer.from([0x21, 0xf9, 0x04])); at >= 0; at = bytes.indexOf(Buffer.from([0x21, 0xf9, 0x04]), at + 1)) {
      if (bytes[at + 3] & 1) transparent = true;
    }
    return { format: 'gif', bits: 8, channels: transparent ? 4 : 3 };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    for (let at = 2; at + 10 <= bytes.length; at += 2 + bytes.readUInt16BE(at + 2)) {
      const marker = bytes[at + 1];
      if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) return { format: 'jpeg', bits: bytes[at + 4], channels: bytes[at + 9] };
    }
    throw new Error('no JPEG frame header');
  }
  if (bytes.toString('latin1', 8, 12) === 'WEBP') {
    const vp8l = bytes.indexOf('VP8L', 12, 'latin1');
    const lossless = vp8l >= 0 && (bytes.indexOf('VP8 ', 12, 'latin1') < 0 || vp8l < bytes.indexOf('VP8 ', 12, 'latin1'));
    const alpha = bytes.indexOf('ALPH', 12, 'latin1') >= 0 || (vp8l >= 0 && (bytes[vp8l + 12] & 0x10) !== 0);
    return { format: 'webp', bits: 8, channels: alpha ? 4 : 3, lossless };
  }
  throw new Error('not a stored image format');
}
