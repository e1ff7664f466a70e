import sharp from 'sharp';
import { rgbaToThumbHash, thumbHashToAverageRGBA, thumbHashToRGBA } from 'thumbhash';
import { placeholderOf, sampledStep, shrinkToRgba, THUMBHASH_EDGE } from '../../server/src/images/placeholder';

/** RGBA pixels: each one from its position. */
function pixels(width: number, height: number, colour: (x: number, y: number) => [number, number, number, number]): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgba.set(colour(x, y), (y * width + x) * 4);
  return rgba;
}
const at = (image: { rgba: Uint8Array; width: number }, x: number, y: number) => [...image.rgba.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)];

test('pixels within the edge are handed on as they are', () => {
  const rgba = pixels(32, 20, () => [1, 2, 3, 255]);
  expect(shrinkToRgba(rgba, 32, 20, 4, 32)).toEqual({ rgba, width: 32, height: 20 });
});

test('larger ones are averaged down to fit the edge, keeping the aspect ratio', () => {
  // Red on the left half, blue on the right; a grey row band at the bottom tenth.
  const shrunk = shrinkToRgba(pixels(100, 50, (x, y) => (y >= 45 ? [128, 128, 128, 255] : x < 52 ? [255, 0, 0, 255] : [0, 0, 255, 255])), 100, 50, 4, 32);
  expect([shrunk.width, shrunk.height, shrunk.rgba.length]).toEqual([32, 16, 32 * 16 * 4]);
  expect(at(shrunk, 0, 0)).toEqual([255, 0, 0, 255]);
  expect(at(shrunk, 31, 0)).toEqual([0, 0, 255, 255]);
  expect(at(shrunk, 0, 15)).toEqual([128, 128, 128, 255]);
  // Output column 16 averages input columns 50 to 53: two red, two blue.
  const middle = at(shrunk, 16, 5);
  expect(middle).toEqual([128, 0, 128, 255]);
});

test('grey, grey with alpha and RGB become RGBA, even within the edge', () => {
  const grey = Uint8Array.from([10, 20, 30, 40]);
  expect(shrinkToRgba(grey, 2, 2, 1, 32)).toEqual({ rgba: Uint8Array.from([10, 10, 10, 255, 20, 20, 20, 255, 30, 30, 30, 255, 40, 40, 40, 255]), width: 2, height: 2 });
  expect(shrinkToRgba(Uint8Array.from([10, 0, 30, 255]), 2, 1, 2, 1)).toEqual({ rgba: Uint8Array.from([30, 30, 30, 128]), width: 1, height: 1 });
  expect(shrinkToRgba(Uint8Array.from([200, 0, 0, 0, 0, 100]), 2, 1, 3, 1)).toEqual({ rgba: Uint8Array.from([100, 0, 50, 255]), width: 1, height: 1 });
});

test('transparent pixels lend no colour; alpha is averaged', () => {
  // Every other pixel transparent black, the rest opaque green: green at half alpha, not dark green.
  const shrunk = shrinkToRgba(pixels(64, 64, (x) => (x % 2 ? [0, 0, 0, 0] : [0, 200, 0, 255])), 64, 64, 4, 32);
  expect(at(shrunk, 7, 7)).toEqual([0, 200, 0, 128]);
  expect(at(shrinkToRgba(pixels(64, 64, () => [9, 9, 9, 0]), 64, 64, 4, 32), 3, 3)).toEqual([0, 0, 0, 0]);
});

/**
 * The box filter written plainly, pixel by pixel: what shrinkToRgba's per-layout loops must equal.
 * At `step` > 1, a pixel counts when it is a multiple of `step` from its box's first row and column.
 */
function shrinkPlainly(data: Uint8Array, width: number, height: number, channels: 1 | 2 | 3 | 4, edge: number, step = 1) {
  const scale = Math.min(1, edge / Math.max(width, height));
  const outWidth = Math.max(1, Math.round(width * scale));
  const outHeight = Math.max(1, Math.round(height * scale));
  const boxOf = (at: number, size: number, outSize: number) => Math.min(outSize - 1, Math.floor((at * outSize) / size));
  // Where each box starts: the first row or column that falls in it.
  const starts = (size: number, outSize: number) => {
    const first: number[] = [];
    for (let at = 0; at < size; at++) first.push(at > 0 && boxOf(at - 1, size, outSize) === boxOf(at, size, outSize) ? first[at - 1] : at);
    return first;
  };
  const [firstRow, firstColumn] = [starts(height, outHeight), starts(width, outWidth)];
  const sums = Array.from({ length: outWidth * outHeight }, () => [0, 0, 0, 0, 0]);
  for (let y = 0; y < height; y++) {
    if ((y - firstRow[y]) % step !== 0) continue;
    for (let x = 0; x < width; x++) {
      if ((x - firstColumn[x]) % step !== 0) continue;
      const sum = sums[boxOf(y, height, outHeight) * outWidth + boxOf(x, width, outWidth)];
      const i = (y * width + x) * channels;
      const rgb = channels < 3 ? [data[i], data[i], data[i]] : [data[i], data[i + 1], data[i + 2]];
      const alpha = channels === 2 || channels === 4 ? data[i + channels - 1] : 255;
      rgb.forEach((value, c) => (sum[c] += value * alpha));
      sum[3] += alpha;
      sum[4] += 1;
    }
  }
  const rgba = Uint8Array.from(sums.flatMap(([r, g, b, a, n]) => [...[r, g, b].map((v) => (a > 0 ? Math.round(v / a) : 0)), Math.round(a / n)]));
  return { rgba, width: outWidth, height: outHeight };
}

test('every layout, at sizes that do not divide evenly, averages as the plain box filter does', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 256;
  for (const [width, height] of [[500, 333], [101, 99], [3, 700], [700, 3], [37, 250], [1, 1]]) {
    for (const channels of [1, 2, 3, 4] as const) {
      const data = Uint8Array.from({ length: width * height * channels }, (_, i) => (channels % 2 === 0 && i % channels === channels - 1 && i % 7 === 0 ? 0 : random()));
      for (const edge of [100, 32]) {
        if (width <= edge && height <= edge && channels === 4) continue;
        for (const step of new Set([1, 2, 3, sampledStep(width, height, edge)])) {
          expect({ channels, edge, step, ...shrinkToRgba(data, width, height, channels, edge, step) }).toEqual({ channels, edge, step, ...shrinkPlainly(data, width, height, channels, edge, step) });
        }
      }
    }
  }
});

test('the step read: every box at least twice an axis, at most half a box apart, the narrowest box deciding', () => {
  expect(sampledStep(500, 333, 100)).toBe(2);
  expect(sampledStep(333, 500, 100)).toBe(2);
  expect(sampledStep(500, 750, 100)).toBe(3);
  expect(sampledStep(399, 200, 100)).toBe(1);
  expect(sampledStep(100, 100, 100)).toBe(1);
  expect(sampledStep(20, 10, 100)).toBe(1);
  // The narrow axis sets it: a sliver's single box across is read at least twice too.
  expect(sampledStep(20, 5000, 100)).toBe(10);
  expect(sampledStep(3, 700, 32)).toBe(1);
});

test('a step that is not a whole number from 1 is refused', () => {
  for (const step of [0, -1, 1.5, Number.NaN]) expect(() => shrinkToRgba(new Uint8Array(300 * 3), 300, 1, 3, 100, step)).toThrow(RangeError);
});

test('a photo read at that step: its placeholder is the one read from every pixel, within what noise moves', async () => {
  // A teal sky over three fifths, a gradient below, fine noise over all, as a photo has: the noise
  // averages out either way.
  let seed = 11;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) % 41) - 20;
  const width = 500;
  const height = 333;
  const level = (value: number) => Math.max(0, Math.min(255, Math.round(value + noise())));
  const data = Buffer.from(
    pixels(width, height, (x, y) =>
      y < 200 ? [level(40), level(136), level(152), 255] : [level(40 + (x * 180) / width), level(200 - ((y - 200) * 150) / 133), level(90), 255]
    ).filter((_, i) => i % 4 !== 3)
  );
  const sampled = await placeholderOf({ data, width, height, channels: 3 });
  const every = shrinkToRgba(data, width, height, 3, 100, 1);
  const hashed = shrinkToRgba(every.rgba, every.width, every.height, 4, THUMBHASH_EDGE);
  const exact = rgbaToThumbHash(hashed.width, hashed.height, hashed.rgba);
  // It is read at that step: its ThumbHash is the step's, not every pixel's.
  const stepped = shrinkToRgba(data, width, height, 3, 100, sampledStep(width, height, 100));
  const steppedHashed = shrinkToRgba(stepped.rgba, stepped.width, stepped.height, 4, THUMBHASH_EDGE);
  expect(sampled.thumbHash).toBe(Buffer.from(rgbaToThumbHash(steppedHashed.width, steppedHashed.height, steppedHashed.rgba)).toString('base64'));
  expect(sampled.thumbHash).not.toBe(Buffer.from(exact).toString('base64'));
  const decodedSampled = thumbHashToRGBA(Buffer.from(sampled.thumbHash, 'base64'));
  const decodedExact = thumbHashToRGBA(exact);
  expect([decodedSampled.w, decodedSampled.h]).toEqual([decodedExact.w, decodedExact.h]);
  // ThumbHash's coefficients are quantized: the same scene under other noise moves its decoded
  // pixels by about 3 levels on average and up to 16 (measured); so does reading a third of them.
  const differences = [...decodedSampled.rgba].map((value, i) => Math.abs(value - decodedExact.rgba[i]));
  expect(differences.reduce((sum, difference) => sum + difference, 0) / differences.length).toBeLessThan(5);
  expect(Math.max(...differences)).toBeLessThanOrEqual(32);
  const [averageSampled, averageExact] = [sampled.thumbHash, Buffer.from(exact).toString('base64')].map((hash) => thumbHashToAverageRGBA(Buffer.from(hash, 'base64')));
  for (const channel of ['r', 'g', 'b'] as const) expect(Math.abs(averageSampled[channel] - averageExact[channel]) * 255).toBeLessThan(1);
  // The sky's colour, the centre of its bin, either way.
  const { dominantColor: exactColour } = await placeholderOf({ data: Buffer.from(every.rgba), width: every.width, height: every.height, channels: 4 });
  expect([sampled.dominantColor, exactColour]).toEqual(['#288898', '#288898']);
});

test('the placeholder of a two-colour image: the ThumbHash shows both halves, the dominant colour is the larger one', async () => {
  const width = 300;
  const height = 200;
  const data = Buffer.from(pixels(width, height, (x) => (x < 200 ? [230, 40, 40, 255] : [40, 40, 230, 255])));
  const { thumbHash, dominantColor } = await placeholderOf({ data, width, height, channels: 4 });
  // The same pixels as RGB: the same placeholder.
  const rgb = Buffer.from(data.filter((_, i) => i % 4 !== 3));
  expect(await placeholderOf({ data: rgb, width, height, channels: 3 })).toEqual({ thumbHash, dominantColor });
  expect(THUMBHASH_EDGE).toBeLessThan(100);
  expect(dominantColor).toBe('#e82828');
  const hash = Buffer.from(thumbHash, 'base64');
  const decoded = thumbHashToRGBA(hash);
  const left = at({ rgba: decoded.rgba, width: decoded.w }, 2, Math.floor(decoded.h / 2));
  const right = at({ rgba: decoded.rgba, width: decoded.w }, decoded.w - 2, Math.floor(decoded.h / 2));
  expect(left[0]).toBeGreaterThan(left[2] + 100);
  expect(right[2]).toBeGreaterThan(right[0] + 100);
  // Its average: two thirds of the red, one third of the blue.
  const average = thumbHashToAverageRGBA(hash);
  expect(average.r * 255).toBeCloseTo((2 * 230 + 40) / 3, -1);
  expect(average.b * 255).toBeCloseTo((2 * 40 + 230) / 3, -1);
  // The same pixels hashed at 100 px (thumbhash.js's own limit): the same average, within two of its steps.
  const { data: full, info } = await sharp(data, { raw: { width, height, channels: 4 } }).resize(100, 100, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const reference = thumbHashToAverageRGBA(Buffer.from((await import('thumbhash')).rgbaToThumbHash(info.width, info.height, full)));
  for (const channel of ['r', 'g', 'b'] as const) expect(Math.abs(average[channel] - reference[channel])).toBeLessThan(0.03);
});

test('a very tall medium (shrunk by sharp, off the JavaScript thread): the same kind of placeholder', async () => {
  const width = 500;
  const height = 4000;
  const data = Buffer.from(pixels(width, height, (_, y) => (y < 3000 ? [20, 160, 20, 255] : [250, 250, 250, 255]))).filter((_, i) => i % 4 !== 3);
  const { thumbHash, dominantColor } = await placeholderOf({ data: Buffer.from(data), width, height, channels: 3 });
  expect(dominantColor).toBe('#18a818');
  const decoded = thumbHashToRGBA(Buffer.from(thumbHash, 'base64'));
  expect(decoded.h).toBeGreaterThan(decoded.w);
  const top = at({ rgba: decoded.rgba, width: decoded.w }, Math.floor(decoded.w / 2), 1);
  const bottom = at({ rgba: decoded.rgba, width: decoded.w }, Math.floor(decoded.w / 2), decoded.h - 1);
  expect(top[1]).toBeGreaterThan(top[0] + 60);
  expect(bottom[0]).toBeGreaterThan(200);
});
