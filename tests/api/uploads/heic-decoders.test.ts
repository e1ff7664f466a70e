/**
 * The two HEIC decoders (docs/operations.md, "HEIC decoding"): heif-convert in a child process and
 * libheif's WebAssembly build store the same upload alike (dimensions, orientation, colour profile,
 * pixels within a level or so); heif-convert missing, failing or hanging (a script standing for it)
 * leaves the WebAssembly decode, or a 311 at the timeout, and no temp file; a bomb is refused from
 * its container before any child runs.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { heic, heicBomb, type HeicColour } from '../../../tools/support/images/heif';
import { binaryParser, expectUploadJson } from '../../helpers/image-json';

const HEIF_CONVERT = '/usr/bin/heif-convert';

const app = useApp();

const fetchBytes = async (url: string): Promise<Buffer> => (await app.http.get(app.pathOf(url)).buffer(true).parse(binaryParser)).body;

/** Scripts standing for heif-convert: each answers the check (`--list-decoders`) as heif-convert does, then does `body`. */
let scripts: string;
function script(name: string, body: string): string {
  const file = path.join(scripts, name);
  fs.writeFileSync(
    file,
    `#!/bin/sh\nif [ "$1" = "--list-decoders" ]; then printf 'HEIC decoders:\\n- libde265 = stand-in\\n'; exit 0; fi\n${body}\n`,
    { mode: 0o755 }
  );
  return file;
}

beforeAll(() => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'heic-decoders-'));
});
afterAll(() => fs.rmSync(scripts, { recursive: true, force: true }));

function useDecoder(decoder: string, timeoutMs = 60_000): void {
  app.strapi.config.set('plugin::image-api.heicDecoder', decoder);
  app.strapi.config.set('plugin::image-api.heicTimeoutMs', timeoutMs);
}
afterEach(() => useDecoder('auto'));

/** What a client gets for `bytes` with `decoder`: the image JSON and its three stored files. */
async function stored(bytes: Buffer, decoder: string) {
  useDecoder(decoder);
  const res = await app.upload(app.key, bytes, { filename: 'IMG_0001.HEIC' });
  expect(res.status).toBe(200);
  const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });
  const [original, medium, thumb] = await Promise.all([image.url, image.medium.url, image.thumb.url].map(fetchBytes));
  return { image, original, medium, thumb };
}

/** The mean absolute difference of each channel between two files of the same size (their numbers, no profile applied). */
async function meanDifference(a: Buffer, b: Buffer): Promise<number[]> {
  const [x, y] = await Promise.all([a, b].map((file) => sharp(file).keepIccProfile().raw().toBuffer({ resolveWithObject: true })));
  expect([x.info.width, x.info.height, x.info.channels]).toEqual([y.info.width, y.info.height, y.info.channels]);
  const sums = [0, 0, 0];
  for (let i = 0; i < x.data.length; i++) sums[i % 3] += Math.abs(x.data[i] - y.data[i]);
  return sums.map((sum) => sum / (x.data.length / 3));
}

const tempFiles = () => (fs.existsSync(app.tmpDir) ? fs.readdirSync(app.tmpDir, { recursive: true }) : []);

/** A photo-like picture: smooth gradients and grain (flat quadrants would hide a chroma or matrix error). */
async function photo(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let s = 7;
  for (let i = 0; i < width * height; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const [x, y] = [(i % width) / width, Math.floor(i / width) / height];
    const grain = ((s >> 16) & 31) - 16;
    data[i * 3] = Math.max(0, Math.min(255, 120 + 90 * Math.sin(6 * x + 2 * y) + grain));
    data[i * 3 + 1] = Math.max(0, Math.min(255, 110 + 80 * Math.cos(5 * y - 3 * x) + grain));
    data[i * 3 + 2] = Math.max(0, Math.min(255, 100 + 70 * Math.sin(9 * x * y + 1) + grain));
  }
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

const haveHeifConvert = fs.existsSync(HEIF_CONVERT);

/** Display P3 as iPhones state it: the code points heif-convert's path needs (without nclx, the WebAssembly build decodes). */
const P3_NCLX = { primaries: 12, transfer: 13, matrix: 6, fullRange: true };
/** A HEIC heif-convert decodes (one it would hand to the WebAssembly build would not test it). */
const nclxHeic = (width: number, height: number, rotate?: 0 | 1 | 2 | 3) => heic({ width, height, rotate, colour: { nclx: P3_NCLX } });

describe('heif-convert and the WebAssembly build store a HEIC alike', () => {
  const p3 = async () => (await sharp(await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } }).withIccProfile('p3').png().toBuffer()).metadata()).icc!;
  test.each<[string, () => Promise<{ rotate?: 0 | 1 | 2 | 3; colour?: HeicColour }>]>([
    ['turned a quarter (irot 3), no colour description (the WebAssembly build decodes it either way)', async () => ({ rotate: 3 })],
    ['turned half (irot 2), Display P3 as an ICC profile (the WebAssembly build decodes it either way)', async () => ({ rotate: 2, colour: { icc: await p3() } })],
    ['turned a quarter (irot 1), Display P3 as nclx', async () => ({ rotate: 1, colour: { nclx: P3_NCLX } })],
    ['Display P3 as nclx (BT.601 full range)', async () => ({ colour: { nclx: P3_NCLX } })],
    ['BT.709 studio range as nclx', async () => ({ colour: { nclx: { primaries: 1, transfer: 1, matrix: 1, fullRange: false } } })],
  ])('%s', async (_label, shape) => {
    if (!haveHeifConvert) throw new Error(`${HEIF_CONVERT} is missing: apt-get install libheif-examples`);
    // Wider than the medium (500) either way up, so both decoders' pixels are resized after the turn.
    const bytes = await heic({ width: 760, height: 520, picture: await photo(760, 520), quality: 80, ...(await shape()) });
    const native = await stored(bytes, HEIF_CONVERT);
    const wasm = await stored(bytes, 'wasm');
    const facts = ({ image }: typeof native) => [image.width, image.height, image.medium.width, image.medium.height, image.thumb.width, image.bits, image.channels];
    expect(facts(native)).toEqual(facts(wasm));
    const [nativeMeta, wasmMeta] = await Promise.all([native.original, wasm.original].map((file) => sharp(file).metadata()));
    expect([nativeMeta.orientation ?? 1, nativeMeta.icc?.toString('hex')]).toEqual([wasmMeta.orientation ?? 1, wasmMeta.icc?.toString('hex')]);
    for (const [a, b] of [[native.original, wasm.original], [native.medium, wasm.medium], [native.thumb, wasm.thumb]]) {
      const difference = await meanDifference(a, b);
      expect(difference.filter((level) => level >= 1.5)).toEqual([]);
    }
    expect(tempFiles()).toEqual([]);
  });
});

test('heif-convert missing (the option names a path that is not there): the WebAssembly build decodes', async () => {
  const bytes = await nclxHeic(900, 600, 1);
  const { image } = await stored(bytes, path.join(scripts, 'no-such-heif-convert'));
  expect([image.width, image.height]).toEqual([600, 900]);
  expect(tempFiles()).toEqual([]);
});

test('heif-convert failing (exit 1, a line on stderr): the WebAssembly build decodes; no temp file left', async () => {
  const ranFile = path.join(scripts, 'failing-ran');
  const failing = script('failing', `touch ${ranFile}\necho "could not decode" >&2\nexit 1`);
  const { image } = await stored(await nclxHeic(700, 500), failing);
  expect(fs.existsSync(ranFile)).toBe(true);
  expect([image.width, image.height]).toEqual([700, 500]);
  expect(tempFiles()).toEqual([]);
});

test('heif-convert hanging: killed at heicTimeoutMs, 400/311, no temp file left', async () => {
  const pidFile = path.join(scripts, 'hanging.pid');
  // exec: the script's own process is the sleep, the one the timeout must kill.
  const hanging = script('hanging', `echo $$ > ${pidFile}\nexec sleep 60`);
  useDecoder(hanging, 2_000);
  const started = Date.now();
  const res = await app.upload(app.key, await nclxHeic(800, 600), { filename: 'slow.heic' });
  expect([res.status, res.body.error?.code]).toEqual([400, 311]);
  expect(Date.now() - started).toBeLessThan(15_000);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  expect(alive()).toBe(false);
  expect(tempFiles()).toEqual([]);
});

test('a HEIC bomb (236 MP declared in 30 KB) is refused 413/315 from its container: heif-convert never runs', async () => {
  const ranFile = path.join(scripts, 'ran');
  const recording = script('recording', `touch ${ranFile}\nexec ${HEIF_CONVERT} "$@"`);
  useDecoder(recording);
  const res = await app.upload(app.key, await heicBomb(30, 30), { filename: 'bomb.heic' });
  expect([res.status, res.body.error]).toEqual([413, { code: 315, message: 'Image too large - max 100 megapixels' }]);
  expect(fs.existsSync(ranFile)).toBe(false);
  // The same script decodes an ordinary HEIC: it is the one in use.
  await stored(await nclxHeic(640, 480), recording);
  expect(fs.existsSync(ranFile)).toBe(true);
  expect(tempFiles()).toEqual([]);
});

test('a heif-convert that writes more than the one image (libheif 1.15 counts top-level images its WebAssembly twin does not): stopped at its first stray file; the WebAssembly build decodes', async () => {
  const ranFile = path.join(scripts, 'stray-ran');
  // Stands for heif-convert writing out-1.y4m, out-2.y4m, ...: one stray file, then it would go on.
  const stray = script('stray', `touch ${ranFile}\nout="$3"\nprintf x > "\${out%.y4m}-1.y4m"\nexec sleep 60`);
  useDecoder(stray, 30_000);
  const started = Date.now();
  const { image } = await stored(await nclxHeic(800, 600), stray);
  expect(fs.existsSync(ranFile)).toBe(true);
  expect([image.width, image.height]).toEqual([800, 600]);
  // Not held until the timeout: the stray file ended the child.
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(tempFiles()).toEqual([]);
});

test('a HEIC without nclx code points (its colours stated by an ICC profile alone, or not at all) is decoded by the WebAssembly build, not heif-convert', async () => {
  const ranFile = path.join(scripts, 'never-ran');
  const recording = script('never', `touch ${ranFile}\nexec ${HEIF_CONVERT} "$@"`);
  const { image } = await stored(await heic({ width: 640, height: 480 }), recording);
  expect([image.width, image.height]).toEqual([640, 480]);
  expect(fs.existsSync(ranFile)).toBe(false);
});
