/**
 * libheif's native decoder, Debian's `heif-convert` (libheif-examples, with libde265), run as a
 * child process (heic-variants.ts): a 12 MP photo's pixels in about 0.75 s of CPU where libheif's
 * WebAssembly build takes 1.9 s. Out of process, so a crash or a bomb costs the child, not the
 * server: the child is killed at the timeout, may not write more than the frame it should, and
 * gets an address space sized to the image (measured: 100 MB for a small image, 140 MB for 12 MP,
 * 180 MB for 24 MP; a child short of memory may also hang rather than fail: the timeout ends it).
 *
 * It writes YUV4MPEG2 (`.y4m`: the frame as libheif decoded it, 4:2:0, upright, the grid assembled;
 * yuv-to-rgb.ts makes RGB of it), not PNG (zlib took 3.8 s of CPU for 12 MP) nor JPEG (lossy twice).
 * Its files are in a temp folder of their own under the upload's temp root, removed whatever
 * happens (the debris sweep removes one a crash of the server left).
 */
import { execFile, type ExecFileException } from 'child_process';
import fs from 'fs';
import path from 'path';
import { errors } from '../../http/api-error';
import { createTempFolders, tempRoot } from '../../http/temp-folders';
import { frameBytes } from './yuv-to-rgb';

/** heif-convert on the PATH, what `heicDecoder: 'auto'` uses. */
const DEFAULT_BINARY = 'heif-convert';

/** Longest the check of a binary may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** The child's address space: a base (libraries, thread stacks, the file) and bytes a pixel (about 2.5x what was measured). */
const BASE_MEMORY = 256 * 1024 * 1024;
const MEMORY_PER_PIXEL = 8;

/** What the child may print (it prints a line or two when it fails; `--quiet` otherwise). */
const MAX_OUTPUT = 64 * 1024;

/** The y4m file's headers, beyond its frame. */
const Y4M_HEADERS = 256;

/** A working native decoder: the binary, and `prlimit` (util-linux) that bounds its memory, files and CPU. */
export interface NativeDecoder {
  binary: string;
  prlimit: string;
}

const folders = createTempFolders();
const probes = new Map<string, Promise<NativeDecoder | null>>();

interface Ran {
  stdout: string;
}

function run(file: string, args: string[], options: { timeoutMs: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT,
        env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        windowsHide: true,
        signal: options.signal,
      },
      (error, stdout) => (error ? reject(error) : resolve({ stdout: String(stdout) }))
    );
  });
}

/** Whether `binary` is a heif-convert with an HEVC decoder: its `--list-decoders` names one under "HEIC decoders". */
async function probe(binary: string): Promise<NativeDecoder | null> {
  try {
    const { stdout } = await run(binary, ['--list-decoders'], { timeoutMs: PROBE_TIMEOUT_MS });
    const lines = stdout.split('\n');
    const heic = lines.findIndex((line) => line.trim() === 'HEIC decoders:');
    if (heic < 0 || !lines[heic + 1]?.trim().startsWith('- ')) return null;
  } catch {
    return null;
  }
  // Without prlimit nothing would bound the child's memory, files or CPU: the WebAssembly decoder then.
  const prlimit = await run('prlimit', ['--version'], { timeoutMs: PROBE_TIMEOUT_MS }).then(
    () => 'prlimit',
    () => null
  );
  return prlimit ? { binary, prlimit } : null;
}

/** The native decoder the `heicDecoder` option names, checked once per process; null: the WebAssembly build decodes. */
export function nativeDecoder(option: string): Promise<NativeDecoder | null> {
  if (option === 'wasm') return Promise.resolve(null);
  const binary = option === 'auto' ? DEFAULT_BINARY : option;
  let probed = probes.get(binary);
  if (!probed) {
    probed = probe(binary);
    probes.set(binary, probed);
  }
  return probed;
}

/** How the child ended, when it did not succeed: killed at the timeout (or for printing too much), or failed. */
export class NativeDecodeFailure extends Error {
  constructor(readonly timedOut: boolean, message: string) {
    super(message);
  }
}

export interface NativeJob {
  bytes: Uint8Array;
  /** The primary image's size, upright, from its container. */
  width: number;
  height: number;
  timeoutMs: number;
  tmpDir: string | null;
}

/**
 * The y4m file heif-convert makes of the HEIC in `bytes` (its size checked against the image's).
 * Rejects with NativeDecodeFailure when the child fails or is killed; its folder is gone either way.
 */
export async function decodeNatively(decoder: NativeDecoder, job: NativeJob): Promise<Buffer> {
  const folder = await folders.make(tempRoot(job.tmpDir));
  try {
    const input = path.join(folder, 'in.heic');
    const output = path.join(folder, 'out.y4m');
    await fs.promises.writeFile(input, job.bytes);
    const pixels = job.width * job.height;
    const limit = frameBytes(job.width, job.height) + Y4M_HEADERS;
    const command = [decoder.binary, '--quiet', input, output];
    const bounded = [`--as=${BASE_MEMORY + MEMORY_PER_PIXEL * pixels}`, `--fsize=${limit}`, `--cpu=${Math.ceil(job.timeoutMs / 1000) + 1}`, '--', ...command];
    // One malloc arena: each thread's arena reserves 64 MB of address space, which made the limit
    // above fail (or hang) at random.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', MALLOC_ARENA_MAX: '1' };
    // heif-convert writes every top-level image it finds, each of its own file (out-1.y4m,
    // out-2.y4m, ...), and libheif 1.15 counts as top-level images that the libheif-js which planned
    // this does not (regions' masks): a file of many would fill the disk, one frame each. Any file but
    // the one expected ends the child at once.
    const stray = new AbortController();
    const watcher = fs.watch(folder, (_event, name) => {
      if (name && name !== 'out.y4m' && name !== 'in.heic') stray.abort();
    });
    try {
      await run(decoder.prlimit, bounded, { timeoutMs: job.timeoutMs, env, signal: stray.signal });
    } catch (error) {
      const failure = error as ExecFileException;
      if (stray.signal.aborted) throw new NativeDecodeFailure(false, 'heif-convert wrote more than one image');
      throw new NativeDecodeFailure(Boolean(failure.killed), failure.killed ? 'heif-convert was killed' : `heif-convert failed: ${failure.message.split('\n')[0]}`);
    } finally {
      watcher.close();
    }
    if ((await fs.promises.readdir(folder)).some((name) => name !== 'out.y4m' && name !== 'in.heic')) throw new NativeDecodeFailure(false, 'heif-convert wrote more than one image');
    const size = (await fs.promises.stat(output).catch(() => null))?.size ?? 0;
    if (size > limit || size < frameBytes(job.width, job.height)) throw new NativeDecodeFailure(false, `heif-convert wrote ${size} bytes`);
    return await fs.promises.readFile(output);
  } finally {
    await folders.remove(folder);
  }
}

/** The decode took longer than the timeout: the error table's answer. */
export const tookTooLong = () => errors.invalidImage('decoding took too long');
