import { frameBytes, frameOf, yuvToRgb } from '../../server/src/images/decoders/yuv-to-rgb';
import { refusal } from '../refusal';

/** A y4m file of one 4:2:0 frame, every sample of each plane the same. */
function y4m(width: number, height: number, [y, cb, cr]: number[], header = `YUV4MPEG2 W${width} H${height} F30:1`): Buffer {
  const chroma = Math.ceil(width / 2) * Math.ceil(height / 2);
  return Buffer.concat([Buffer.from(`${header}\nFRAME\n`), Buffer.alloc(width * height, y), Buffer.alloc(chroma, cb), Buffer.alloc(chroma, cr)]);
}

test('a frame of odd size: chroma planes rounded up', () => {
  expect(frameBytes(3, 3)).toBe(9 + 2 * 4);
  expect(frameOf(y4m(3, 3, [1, 2, 3]), 3, 3).length).toBe(17);
});

test('anything but the expected frame is refused 311', async () => {
  const refused = { status: 400, code: 311 };
  expect(await refusal(() => frameOf(y4m(4, 4, [0, 0, 0]), 4, 5))).toMatchObject(refused);
  expect(await refusal(() => frameOf(y4m(4, 4, [0, 0, 0], 'YUV4MPEG2 W4 H4 C444'), 4, 4))).toMatchObject(refused);
  expect(await refusal(() => frameOf(y4m(4, 4, [0, 0, 0]).subarray(0, -1), 4, 4))).toMatchObject(refused);
  expect(await refusal(() => frameOf(Buffer.from('not a y4m file at all'), 4, 4))).toMatchObject(refused);
});

test.each([
  // BT.601 full range: grey stays grey; (Y 76, Cb 85, Cr 255) is red.
  [{ matrix: 6, fullRange: true }, [128, 128, 128], [128, 128, 128]],
  [{ matrix: 6, fullRange: true }, [76, 85, 255], [255, 0, 0]],
  // Studio range: 16 is black, 235 white (scaled as libheif scales it, clamped).
  [{ matrix: 1, fullRange: false }, [16, 128, 128], [0, 0, 0]],
  [{ matrix: 1, fullRange: false }, [235, 128, 128], [255, 255, 255]],
])('%j: YCbCr %j is RGB %j', (matrix, yuv, rgb) => {
  const pixels = yuvToRgb(frameOf(y4m(2, 2, yuv), 2, 2), 2, 2, matrix);
  expect([...pixels.subarray(0, 3)].map((v, i) => Math.abs(v - rgb[i]) <= 1)).toEqual([true, true, true]);
  expect(pixels.length).toBe(12);
});
