/**
 * heif-convert's YUV4MPEG2 (decoders/heif-convert.ts: one 8-bit 4:2:0 frame, upright, a grid
 * assembled) as interleaved RGB, as libheif would make it: the nclx matrix and range of the file
 * (BT.601 full range where it has none, libheif's default), each chroma sample spread over its 2×2
 * pixels. Measured against libheif-js's own RGB: a mean difference under 0.1 level a channel, full
 * range or studio range.
 */
import { errors } from '../../http/api-error';

/** The matrices this converts (H.273 matrix_coefficients) and their Kr, Kb; others are decoded by libheif-js. */
const MATRICES: Record<number, [number, number]> = {
  1: [0.2126, 0.0722], // BT.709
  2: [0.299, 0.114], // unspecified: libheif takes BT.601
  5: [0.299, 0.114], // BT.601 (625 lines)
  6: [0.299, 0.114], // BT.601 (525 lines)
  9: [0.2627, 0.0593], // BT.2020, non-constant luminance
};

/** How libheif turns this file's YCbCr into RGB. */
export interface YuvMatrix {
  matrix: number;
  fullRange: boolean;
}

export const convertsMatrix = (matrix: number) => matrix in MATRICES;

/** The frame's size in bytes: a full-size luma plane and two quarter-size chroma planes (odd sizes rounded up). */
export const frameBytes = (width: number, height: number) => width * height + 2 * Math.ceil(width / 2) * Math.ceil(height / 2);

/** The frame of a YUV4MPEG2 file of `width`×`height` (anything else: 311). */
export function frameOf(y4m: Uint8Array, width: number, height: number): Uint8Array {
  const headerEnd = y4m.indexOf(0x0a);
  const frameEnd = headerEnd < 0 ? -1 : y4m.indexOf(0x0a, headerEnd + 1);
  if (headerEnd < 0 || headerEnd > 256 || frameEnd < 0 || frameEnd - headerEnd > 64) throw errors.invalidImage();
  const header = Buffer.from(y4m.buffer, y4m.byteOffset, headerEnd).toString('latin1').split(' ');
  const tag = (letter: string) => header.find((field) => field.startsWith(letter))?.slice(1);
  const chroma = tag('C');
  const frame = y4m.subarray(frameEnd + 1);
  const fits =
    header[0] === 'YUV4MPEG2' &&
    tag('W') === String(width) &&
    tag('H') === String(height) &&
    (chroma === undefined || chroma.startsWith('420')) &&
    Buffer.from(y4m.buffer, y4m.byteOffset + headerEnd + 1, 5).toString('latin1') === 'FRAME' &&
    frame.length === frameBytes(width, height);
  if (!fits) throw errors.invalidImage();
  return frame;
}

/** The frame's pixels as interleaved RGB, rows top to bottom. */
export function yuvToRgb(frame: Uint8Array, width: number, height: number, { matrix, fullRange }: YuvMatrix): Buffer {
  const [kr, kb] = MATRICES[matrix] ?? MATRICES[6];
  const kg = 1 - kr - kb;
  // Studio range: luma from 16, chroma around 128, scaled as libheif scales them (256/219 and
  // 256/224, not 255/: with 255 every channel came out half a level darker than libheif-js's).
  const lumaScale = fullRange ? 1 : 256 / 219;
  const lumaOffset = fullRange ? 0 : 16;
  const chromaScale = fullRange ? 1 : 256 / 224;
  const luma = new Float32Array(256);
  const crToR = new Float32Array(256);
  const cbToB = new Float32Array(256);
  const cbToG = new Float32Array(256);
  const crToG = new Float32Array(256);
  for (let v = 0; v < 256; v++) {
    luma[v] = (v - lumaOffset) * lumaScale;
    const c = (v - 128) * chromaScale;
    crToR[v] = 2 * (1 - kr) * c;
    cbToB[v] = 2 * (1 - kb) * c;
    cbToG[v] = ((-2 * kb * (1 - kb)) / kg) * c;
    crToG[v] = ((-2 * kr * (1 - kr)) / kg) * c;
  }
  const chromaWidth = Math.ceil(width / 2);
  const cbPlane = width * height;
  const crPlane = cbPlane + chromaWidth * Math.ceil(height / 2);
  const rgb = Buffer.allocUnsafe(width * height * 3);
  // A clamped view rounds and clamps each channel on assignment.
  const out = new Uint8ClampedArray(rgb.buffer, rgb.byteOffset, rgb.byteLength);
  let at = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const chromaRow = (y >> 1) * chromaWidth;
    for (let x = 0; x < width; x++) {
      const c = chromaRow + (x >> 1);
      const cb = frame[cbPlane + c];
      const cr = frame[crPlane + c];
      const l = luma[frame[row + x]];
      out[at++] = l + crToR[cr];
      out[at++] = l + cbToG[cb] + crToG[cr];
      out[at++] = l + cbToB[cb];
    }
  }
  return rgb;
}
