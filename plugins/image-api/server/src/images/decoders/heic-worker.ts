/**
 * The worker thread of heic-pixels.ts: decodes each HEIC it is sent with libheif (libheif-js, a
 * WebAssembly build: sharp's libvips reads HEIF containers but has no HEVC decoder) and hands back
 * the primary image's RGBA pixels, moved, not copied. libheif applies the container's rotation and
 * mirroring (`irot`, `imir`) and assembles tiled (grid) images, as phones write them. One job at a
 * time.
 */
import fs from 'fs';
import { parentPort } from 'worker_threads';

/** What the worker is sent: the file, and the pixel cap it checks again before decoding. */
export interface HeicJob {
  bytes: Uint8Array;
  maxPixels: number;
}

/** What the worker answers: the pixels, or why not (`tooLarge`: over the cap; `failure`: unreadable). */
export type HeicAnswer =
  | { pixels: Uint8Array; width: number; height: number; hasAlpha: boolean }
  | { tooLarge: true }
  | { failure: string };

interface HeifImage {
  get_width(): number;
  get_height(): number;
  is_primary(): boolean;
  has_alpha_channel(): boolean;
  display(target: { data: Uint8ClampedArray; width: number; height: number }, done: (result: unknown) => void): void;
  free(): void;
}
interface Libheif {
  HeifDecoder: new () => { decode(bytes: Uint8Array): HeifImage[] };
}

// libheif-js's own `wasm.js` reads the binary from a path relative to the working directory: it is
// loaded here from the package's folder instead.
const wasmPath = require.resolve('libheif-js/libheif-wasm/libheif.wasm');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const libheif: Libheif = require('libheif-js/libheif-wasm/libheif.js')({ wasmBinary: fs.readFileSync(wasmPath) });

async function decode({ bytes, maxPixels }: HeicJob): Promise<HeicAnswer> {
  let images: HeifImage[] = [];
  try {
    images = new libheif.HeifDecoder().decode(bytes);
    const image = images.find((candidate) => candidate.is_primary()) ?? images[0];
    if (!image) return { failure: 'no image in the file' };
    const [width, height] = [image.get_width(), image.get_height()];
    // The container was read, not the pixels: the cap holds before anything is decoded.
    if (!width || !height) return { failure: 'zero dimensions' };
    if (width * height > maxPixels) return { tooLarge: true };
    const data = new Uint8ClampedArray(width * height * 4);
    const decoded = await new Promise<unknown>((resolve) => image.display({ data, width, height }, resolve));
    if (!decoded) return { failure: 'HEVC data could not be decoded' };
    return { pixels: new Uint8Array(data.buffer), width, height, hasAlpha: image.has_alpha_channel() };
  } catch (error) {
    return { failure: String((error as Error)?.message ?? error) };
  } finally {
    for (const image of images) image.free();
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (job: HeicJob) => {
    void decode(job).then((answer) => port.postMessage(answer, 'pixels' in answer ? [answer.pixels.buffer as ArrayBuffer] : []));
  });
}
