/**
 * Stored files read into reused buffers for renders (storage/reused-buffers.ts), on real files: the
 * bytes given are the file's, a buffer is not shared while in use and is used again after, a file
 * larger than a buffer is given by path, and a missing one rejects before any work.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import crypto from 'crypto';
import { reusedBuffers } from '../../server/src/storage/reused-buffers';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reused-buffers-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = (name: string, bytes: Buffer) => {
  const at = path.join(dir, name);
  fs.writeFileSync(at, bytes);
  return at;
};

/** The memory a Buffer input lives in (one reused buffer: the same ArrayBuffer each time). */
const memoryOf = (input: Buffer | string) => {
  if (typeof input === 'string') throw new Error(`a path was given: ${input}`);
  return input.buffer;
};

test("the work gets the file's bytes, exactly, in the same memory each time", async () => {
  const buffers = reusedBuffers(1024, 2);
  const long = file('long.bin', crypto.randomBytes(1000));
  const short = file('short.bin', crypto.randomBytes(10));
  const seen: ArrayBufferLike[] = [];
  for (const at of [long, short, long]) {
    await buffers.withFile(at, async (input) => {
      expect(Buffer.isBuffer(input)).toBe(true);
      // Only this file's bytes: nothing of the longer file read before it into the same memory.
      expect(Buffer.compare(input as Buffer, fs.readFileSync(at))).toBe(0);
      seen.push(memoryOf(input));
    });
  }
  expect(new Set(seen).size).toBe(1);
});

test('an empty file is given as no bytes', async () => {
  const buffers = reusedBuffers(64, 1);
  await buffers.withFile(file('empty.bin', Buffer.alloc(0)), async (input) => {
    expect(Buffer.isBuffer(input) && input.length).toBe(0);
  });
});

test('a file larger than a buffer is given by its path', async () => {
  const buffers = reusedBuffers(64, 1);
  const at = file('large.bin', crypto.randomBytes(65));
  await expect(buffers.withFile(at, async (input) => input)).resolves.toBe(at);
  // One byte under: in memory.
  const fits = file('fits.bin', crypto.randomBytes(64));
  await buffers.withFile(fits, async (input) => expect(Buffer.isBuffer(input)).toBe(true));
});

test('works at once get buffers of their own; at most `kept` of them stay for later', async () => {
  const buffers = reusedBuffers(64, 2);
  const at = [0, 1, 2].map((i) => file(`at-once-${i}.bin`, Buffer.alloc(8, i)));
  const holdAll = async () => {
    const memories: ArrayBufferLike[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const works = at.map((filePath, i) =>
      buffers.withFile(filePath, async (input) => {
        memories.push(memoryOf(input));
        // Each still holds its own file's bytes while the others have read theirs.
        await held;
        expect([...(input as Buffer)]).toEqual(Array(8).fill(i));
      })
    );
    while (memories.length < at.length) await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all(works);
    return memories;
  };
  const first = await holdAll();
  expect(new Set(first).size).toBe(3);
  const second = await holdAll();
  expect(new Set(second).size).toBe(3);
  // Two of the first three were kept and used again; the third was let go.
  expect(second.filter((memory) => first.includes(memory))).toHaveLength(2);
});

test('a buffer is not given to another file until the work on it has settled', async () => {
  const buffers = reusedBuffers(64, 1);
  const first = file('held-a.bin', Buffer.alloc(16, 0xaa));
  const second = file('held-b.bin', Buffer.alloc(16, 0xbb));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let firstInput: Buffer | null = null;
  // The first work holds its input, as a render holds its source while libvips decodes it.
  const firstWork = buffers.withFile(first, async (input) => {
    firstInput = input as Buffer;
    await held;
    return [...(input as Buffer)];
  });
  while (!firstInput) await new Promise((resolve) => setImmediate(resolve));
  // A second file read meanwhile goes into other memory, and leaves the first one's bytes alone.
  await buffers.withFile(second, async (input) => {
    expect(memoryOf(input)).not.toBe(memoryOf(firstInput!));
    expect([...(input as Buffer)]).toEqual(Array(16).fill(0xbb));
  });
  release();
  expect(await firstWork).toEqual(Array(16).fill(0xaa));
});

test('a work that fails still gives its buffer back', async () => {
  const buffers = reusedBuffers(64, 1);
  const at = file('fails.bin', Buffer.from('abc'));
  let memory: ArrayBufferLike | null = null;
  await expect(
    buffers.withFile(at, async (input) => {
      memory = memoryOf(input);
      throw new Error('render failed');
    })
  ).rejects.toThrow('render failed');
  await buffers.withFile(at, async (input) => expect(memoryOf(input)).toBe(memory));
});

test('a missing file rejects with ENOENT, and no work runs', async () => {
  const buffers = reusedBuffers(64, 1);
  const work = jest.fn(async () => undefined);
  await expect(buffers.withFile(path.join(dir, 'gone.bin'), work)).rejects.toMatchObject({ code: 'ENOENT' });
  expect(work).not.toHaveBeenCalled();
});
