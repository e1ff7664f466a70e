/**
 * The most recently served image bytes, kept in memory (`hotFileCacheBytes` in all, entries up to
 * HOT_FILE_MAX_BYTES each), so a hot file or kept transformation is answered without a read
 * (docs/performance.md, "Serving"). Entries are keyed by what makes the bytes unique (a file's
 * path, modification time and size; a kept result's key): callers look that identity up first, so a
 * deleted or changed file is never answered from here. An entry kept for an image is also dropped
 * when that image changes (forgetImages(), from delivery/hot-files.ts): a deleted image's bytes do
 * not wait for eviction to give their memory back.
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
  /** Keeps the entry if it fits, as one of `image`'s when named; returns it. */
  keep(key: string, entry: HotEntry, image?: string): HotEntry;
  /** Drops the entries kept for these images. */
  forgetImages(names: string[]): void;
}

export function createHotFiles(maxBytes: number): HotFiles {
  if (maxBytes <= 0) return { get: () => undefined, fits: () => false, keep: (_, entry) => entry, forgetImages: () => undefined };
  /** Image name → the keys of its entries, and back; kept in step with the cache by its dispose. */
  const byImage = new Map<string, Set<string>>();
  const imageOf = new Map<string, string>();
  const unlink = (key: string) => {
    const image = imageOf.get(key);
    if (image === undefined) return;
    imageOf.delete(key);
    const keys = byImage.get(image);
    keys?.delete(key);
    if (keys?.size === 0) byImage.delete(image);
  };
  const cache = new LRUCache<string, HotEntry>({
    maxSize: maxBytes,
    sizeCalculation: ({ bytes }) => Math.max(1, bytes.length),
    // Evicted, replaced or deleted.
    dispose: (_, key) => unlink(key),
  });
  const fits = (size: number) => size <= Math.min(HOT_FILE_MAX_BYTES, maxBytes);
  return {
    get: (key) => cache.get(key),
    fits,
    keep(key, entry, image) {
      if (!fits(entry.bytes.length)) return entry;
      cache.set(key, entry);
      // Only if the set kept it (an entry larger than the whole budget is not).
      if (image !== undefined && cache.has(key)) {
        imageOf.set(key, image);
        let keys = byImage.get(image);
        if (!keys) byImage.set(image, (keys = new Set()));
        keys.add(key);
      }
      return entry;
    },
    forgetImages(names) {
      for (const name of names) for (const key of [...(byImage.get(name) ?? [])]) cache.delete(key);
    },
  };
}
