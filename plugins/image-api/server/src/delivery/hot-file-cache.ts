/**
 * The most recently served image bytes, kept in memory (`hotFileCacheBytes` in all, entries up to
 * HOT_FILE_MAX_BYTES each), so a hot file or kept transformation is answered without a read
 * (docs/performance.md, "Serving"). Entries are keyed by what makes the bytes unique (a file's
 * path, modification time and size; a kept result's key): callers look that identity up first, so a
 * deleted or changed file is never answered from here.
 */
import { LRUCache } from 'lru-cache';
import type { ImmutableBytes } from './immutable-answer';

/** Larger entries are not kept (files are streamed from disk instead). */
export const HOT_FILE_MAX_BYTES = 1_000_000;

/** Bytes in memory with the headers they are answered with. */
export type HotEntry = Omit<ImmutableBytes, 'bytes' | 'path' | 'size'> & { bytes: Buffer };

export interface HotFiles {
  get(key: string): HotEntry | undefined;
  /** Whether bytes of this size would be kept (else they are streamed, never read whole). */
  fits(size: number): boolean;
  /** Keeps the entry if it fits; returns it. */
  keep(key: string, entry: HotEntry): HotEntry;
}

export function createHotFiles(maxBytes: number): HotFiles {
  if (maxBytes <= 0) return { get: () => undefined, fits: () => false, keep: (_, entry) => entry };
  const cache = new LRUCache<string, HotEntry>({ maxSize: maxBytes, sizeCalculation: ({ bytes }) => Math.max(1, bytes.length) });
  const fits = (size: number) => size <= Math.min(HOT_FILE_MAX_BYTES, maxBytes);
  return {
    get: (key) => cache.get(key),
    fits,
    keep(key, entry) {
      if (fits(entry.bytes.length)) cache.set(key, entry);
      return entry;
    },
  };
}
