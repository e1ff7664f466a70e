/**
 * The worker thread of heic-variants.ts: decodes each HEIC it is sent with libheif (libheif-js, a
 * WebAssembly build: sharp's libvips reads HEIF containers but has no HEVC decoder), then makes its
 * variants from those pixels here (image-variants.ts, pixelVariants) and hands back only the
 * encoded files. libheif applies the container's rotation and mirroring (`irot`, `imir`) and
 * assembles tiled (grid) images, as phones write them; what the numbers mean (a phone's Display P3)
 * is read beside them (heic-colour.ts). One job at a time.
 *
 * Memory is what this is careful about (heic-variants.ts): the pixels are copied once out of the
 * WebAssembly heap (libheif-js's `display()` makes two copies, of four channels) and never leave this
 * thread; the decoder's context is freed (libheif-js would keep it until its next decode); and what
 * a job leaves is collected after it rather than whenever V8 gets to it.
 *
 * When heif-convert may decode (heic-variants.ts, heif-convert.ts), only the container is read here:
 * the answer is the plan of that decode (its size, its YCbCr matrix, its profile), for an image it
 * decodes as libheif-js would: 8 bits, 4:2:0, no alpha, the file's only top-level image (heif-convert
 * writes every one), a matrix yuv-to-rgb.ts knows. Its frame comes back here, made RGB and its variants.
 */
import fs from 'fs';
import { parentPort } from 'worker_threads';
import { errors, isApiError, refusalOf } from '../../http/api-error';
import { pixelVariants } from '../image-variants';
import type { DecodedPixels, HeicAnswer, HeicJob, NativePlan } from './heic-job';
import { addressOf, colourOf, nclxOf, profileOf, type LibheifColourCalls } from './heic-colour';
import { convertsMatrix, frameOf, yuvToRgb } from './yuv-to-rgb';
import { collectGarbage } from '../../operations/collect-garbage';


/** libheif-js's image handle wrapper (its `handle` is libheif's `heif_image_handle`). */
interface HeifImage {
  handle: unknown;
  get_width(): number;
  get_height(): number;
  is_primary(): boolean;
  has_alpha_channel(): boolean;
  free(): void;
}
interface HeifDecoder {
  decode(bytes: Uint8Array): HeifImage[];
  /** The libheif context of the last decode (holds a copy of the file and everything parsed). */
  decoder: unknown;
}
interface DecodedImage {
  code?: number;
  image: unknown;
  channels: Array<{ id: number; width: number; height: number; stride: number; data: Uint8Array }>;
}
interface Libheif extends LibheifColourCalls {
  _heif_image_handle_get_luma_bits_per_pixel(handle: number): number;
  _heif_image_handle_get_chroma_bits_per_pixel(handle: number): number;
  /** Returns a `heif_error` (12 bytes) through its first argument. */
  _heif_image_handle_get_preferred_decoding_colorspace(error: number, handle: number, colorspace: number, chroma: number): void;
  HeifDecoder: new () => HeifDecoder;
  heif_context_free(context: unknown): void;
  heif_js_decode_image2(handle: unknown, colorspace: number, chroma: number): Promise<DecodedImage | null> | DecodedImage | null;
  heif_image_release(image: unknown): void;
  heif_colorspace: { heif_colorspace_RGB: number };
  heif_chroma: { heif_chroma_interleaved_RGB: number; heif_chroma_interleaved_RGBA: number };
  heif_channel: { heif_channel_interleaved: number };
}

// libheif-js's own `wasm.js` reads the binary from a path relative to the working directory: it is
// loaded here from the package's folder instead.
const wasmPath = require.resolve('libheif-js/libheif-wasm/libheif.wasm');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const libheif: Libheif = require('libheif-js/libheif-wasm/libheif.js')({ wasmBinary: fs.readFileSync(wasmPath) });

/** The interleaved rows, copied out of the WebAssembly heap (which the next decode reuses), without row padding. */
function copyPixels(channel: DecodedImage['channels'][number], channels: number): Uint8Array {
  const row = channel.width * channels;
  if (channel.stride === row) return channel.data.slice(0, row * channel.height);
  const pixels = new Uint8Array(row * channel.height);
  for (let y = 0; y < channel.height; y++) pixels.set(channel.data.subarray(y * channel.stride, y * channel.stride + row), y * row);
  return pixels;
}

/**
 * The primary image's pixels, with the profile of the colour space they are in (heic-colour.ts);
 * refusals are the error table's (311 unreadable, 315 over the cap).
 */
async function decode(bytes: Uint8Array, maxPixels: number, native: boolean): Promise<DecodedPixels | NativePlan> {
  const decoder = new libheif.HeifDecoder();
  let images: HeifImage[] = [];
  let decoded: DecodedImage | null = null;
  try {
    images = decoder.decode(bytes);
    const image = images.find((candidate) => candidate.is_primary()) ?? images[0];
    if (!image) throw errors.invalidImage();
    const [width, height] = [image.get_width(), image.get_height()];
    // The container was read, not the pixels: the cap holds before anything is decoded.
    if (!width || !height) throw errors.invalidImage('zero dimensions');
    if (width * height > maxPixels) throw errors.tooManyPixels(maxPixels);
    if (native) {
      const plan = await nativePlan(image, images.length, width, height);
      if (plan) return plan;
    }
    const channels = image.has_alpha_channel() ? 4 : 3;
    const chroma = channels === 4 ? libheif.heif_chroma.heif_chroma_interleaved_RGBA : libheif.heif_chroma.heif_chroma_interleaved_RGB;
    decoded = await libheif.heif_js_decode_image2(image.handle, libheif.heif_colorspace.heif_colorspace_RGB, chroma);
    const channel = decoded?.channels?.find((candidate) => candidate.id === libheif.heif_channel.heif_channel_interleaved);
    if (!decoded || decoded.code || !channel || channel.width !== width || channel.height !== height) throw errors.invalidImage();
    const pixels = copyPixels(channel, channels);
    const icc = await profileOf(colourOf(libheif, image.handle));
    return { pixels: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), width, height, channels, icc };
  } finally {
    if (decoded?.image) libheif.heif_image_release(decoded.image);
    for (const image of images) image.free();
    // libheif-js frees a decoder's context only when the same decoder decodes again: freed here, or
    // every image would leave its file and parsed container in the WebAssembly heap (measured: the
    // heap grew by 16 MB a 12 MP photo; now it stays at 65 MB).
    if (decoder.decoder) libheif.heif_context_free(decoder.decoder);
    decoder.decoder = null;
  }
}

/** A YCbCr 4:2:0 image (libheif's enums heif_colorspace_YCbCr and heif_chroma_420): what heif-convert's y4m holds as it was coded. */
const YCBCR = 0;
const CHROMA_420 = 1;

/** The plan of heif-convert's decode of `image`, or null where libheif-js decodes it (see the file comment). */
async function nativePlan(image: HeifImage, topLevelImages: number, width: number, height: number): Promise<NativePlan | null> {
  const address = addressOf(image.handle);
  if (address === null || topLevelImages !== 1 || image.has_alpha_channel()) return null;
  if (libheif._heif_image_handle_get_luma_bits_per_pixel(address) !== 8 || libheif._heif_image_handle_get_chroma_bits_per_pixel(address) !== 8) return null;
  const scratch = libheif._malloc(24);
  try {
    libheif._heif_image_handle_get_preferred_decoding_colorspace(scratch, address, scratch + 16, scratch + 20);
    const coded = libheif.HEAP32[scratch >> 2] === 0 && libheif.HEAP32[(scratch + 16) >> 2] === YCBCR && libheif.HEAP32[(scratch + 20) >> 2] === CHROMA_420;
    if (!coded) return null;
  } finally {
    libheif._free(scratch);
  }
  // libheif converts by the container's nclx matrix and range, present beside an ICC profile too.
  // Without one it takes them from the HEVC stream's own signalling (its VUI), which this does not
  // read: such files (an ICC profile alone, or no colour at all) are libheif-js's to decode, or their
  // colours could differ from one decoder to the other.
  const nclx = nclxOf(libheif, image.handle);
  if (!nclx) return null;
  const matrix = { matrix: nclx.matrix, fullRange: nclx.fullRange };
  if (!convertsMatrix(matrix.matrix)) return null;
  return { width, height, ...matrix, icc: await profileOf(colourOf(libheif, image.handle)) };
}

/** heif-convert's frame as the decoded image. */
function nativePixels(frame: Uint8Array, plan: NativePlan): DecodedPixels {
  const { width, height, icc } = plan;
  return { pixels: yuvToRgb(frameOf(frame, width, height), width, height, plan), width, height, channels: 3, icc };
}

async function work({ bytes, options, width, native, y4m }: HeicJob): Promise<HeicAnswer> {
  try {
    const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const decoded = y4m ? nativePixels(y4m.frame, y4m.plan) : await decode(bytes, options.maxPixels, native === true);
    if (!('pixels' in decoded)) return { native: decoded };
    return { variants: await pixelVariants(decoded, file, options, width) };
  } catch (error) {
    const refusal = isApiError(error) ? error : errors.invalidImage();
    return { refusal: refusalOf(refusal) };
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (job: HeicJob) => {
    void work(job).then((answer) => {
      // The encoded files are copied over (a few MB); the pixels stay here.
      port.postMessage(answer);
      // The job's file, pixels and whatever the decode left: freed now, not when V8 next gets to it.
      collectGarbage();
    });
  });
}
