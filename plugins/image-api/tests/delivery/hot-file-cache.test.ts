/** The hot bytes (delivery/hot-file-cache.ts): an image that changes loses its entries, evicted ones leave no trace. */
import { createHotFiles, type HotEntry } from '../../server/src/delivery/hot-file-cache';

const entry = (size: number): HotEntry => ({ bytes: Buffer.alloc(size, 1), type: 'image/png', etag: '"e"', lastModified: new Date(0) });

test("forgetImages drops the entries kept for those images, and no other's", () => {
  const hot = createHotFiles(10_000);
  hot.keep('file:a-1.png:e', entry(10), 'a-1');
  hot.keep('rendition-of-a', entry(10), 'a-1');
  hot.keep('file:b-2.png:e', entry(10), 'b-2');
  hot.keep('anonymous', entry(10));
  hot.forgetImages(['a-1', 'unknown']);
  expect(['file:a-1.png:e', 'rendition-of-a', 'file:b-2.png:e', 'anonymous'].map((key) => Boolean(hot.get(key)))).toEqual([false, false, true, true]);
  // Kept again after the change: dropped again by the next one.
  hot.keep('file:a-1.png:e', entry(10), 'a-1');
  expect(hot.get('file:a-1.png:e')).toBeDefined();
  hot.forgetImages(['a-1']);
  expect(hot.get('file:a-1.png:e')).toBeUndefined();
});

test('an entry evicted, or replaced, is forgotten as its image changes without touching its successor', () => {
  const hot = createHotFiles(100);
  hot.keep('old', entry(60), 'a-1');
  hot.keep('new', entry(60), 'b-2');
  // `old` was evicted to make room; its image's change drops nothing of b-2's.
  expect(hot.get('old')).toBeUndefined();
  hot.forgetImages(['a-1']);
  expect(hot.get('new')).toBeDefined();
  // The same key kept for another image afterwards belongs to that one only.
  hot.keep('shared', entry(10), 'a-1');
  hot.keep('shared', entry(10), 'c-3');
  hot.forgetImages(['a-1']);
  expect(hot.get('shared')).toBeDefined();
  hot.forgetImages(['c-3']);
  expect(hot.get('shared')).toBeUndefined();
});

test('no budget: nothing is kept, and forgetting is harmless', () => {
  const hot = createHotFiles(0);
  hot.keep('k', entry(10), 'a-1');
  hot.forgetImages(['a-1']);
  expect(hot.get('k')).toBeUndefined();
});
