/**
 * Stored files read into a few buffers that are used again and again, for sharp to read from memory.
 *
 * Why not the file's path: libvips opening a file by name lets each of its loaders sniff it, and
 * opens, seeks and reads it a little at a time (a 12 MP JPEG was opened about twenty times for one
 * render, and a dozen more for its size). Why not a new buffer each time: a new buffer of a few MB is
 * pages the kernel must hand out and zero on first touch, one fault per 4 KB, and on this service's
 * virtual machines a fault costs more than the read (a new buffer per render: 835 faults a render, and
 * renders at 0.6 of the bare resize against 0.77 by path; docs/performance.md, "Serving").
 *
 * A buffer holds one file at a time, from the read until the work on it has settled (sharp reads the
 * memory it is given, without a copy, while a pipeline runs). Files larger than a buffer are read by
 * path. At most `kept` buffers are kept between uses; more at once are made and let go.
 */
import { promises as fsp } from 'fs';

export interface ReusedBuffers {
  /**
   * Runs `work` with the file at `filePath`: its bytes in a reused buffer, or its path when it is
   * larger than one. Resolves once `work` has settled; the buffer is free for the next file then, so
   * `work` must not leave anything reading it. A missing file rejects with the read's ENOENT.
   */
  withFile<T>(filePath: string, work: (input: Buffer | string) => Promise<T>): Promise<T>;
}

/** `bytes`: each buffer's size (its pages are taken only as files fill them); `kept`: how many stay between uses. */
export function reusedBuffers(bytes: number, kept: number): ReusedBuffers {
  const free: Buffer[] = [];
  const take = () => free.pop() ?? Buffer.allocUnsafeSlow(bytes);
  const give = (buffer: Buffer) => {
    if (free.length < kept) free.push(buffer);
  };
  return {
    async withFile(filePath, work) {
      const buffer = take();
      try {
        const bytesRead = await readInto(filePath, buffer);
        return await work(bytesRead === null ? filePath : buffer.subarray(0, bytesRead));
      } finally {
        give(buffer);
      }
    },
  };
}

/** Reads the whole file into `buffer`: the bytes read, or null (nothing read) when it is larger. */
async function readInto(filePath: string, buffer: Buffer): Promise<number | null> {
  const handle = await fsp.open(filePath, 'r');
  try {
    const { size } = await handle.stat();
    if (size > buffer.length) return null;
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(buffer, offset, size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return offset;
  } finally {
    await handle.close();
  }
}
