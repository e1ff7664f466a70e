/**
 * One full collection when the process goes quiet after work that left much garbage behind.
 *
 * Uploads and renders allocate large buffers outside V8's heap (request bodies, the files they write,
 * a BMP's PNG, a HEIC's variants), and V8 frees a dead one only at its next collection. While
 * uploads come, the collections come too (V8 starts one for each 64 MB of such memory); after the
 * last upload of a burst, a quiet server allocates nothing, collects nothing, and keeps whatever the
 * burst left, for as long as it stays quiet: measured, 16 phone photos at once left 87 MB of dead
 * buffers (their variants) in RSS, and three 77 MP BMPs 50 MB.
 *
 * So when no upload request and no image work has been under way for SETTLE_MS, and more than
 * GARBAGE_BYTES of memory outside the heap were allocated since the last such collection (V8's
 * external memory: it counts what sharp and Node allocate, and forgets some of what they free, so
 * it says how much work went by rather than what lives), the process collects once: a full
 * mark-compact of a heap of about 80 MB, tens of milliseconds of the main thread, at a moment when
 * no upload waits for it. A server that is never quiet, or whose work allocates little, never pays it.
 */
import v8 from 'v8';
import { collectGarbage } from './collect-garbage';

/** How long the image work must have been quiet. */
const SETTLE_MS = 1000;
/** External memory allocated since the last collection that is worth one. */
const GARBAGE_BYTES = 32 * 1024 * 1024;

/** External memory as the last collection left it. */
let since = 0;
let timer: NodeJS.Timeout | null = null;

const externalMemory = () => v8.getHeapStatistics().external_memory;

function settled(): void {
  timer = null;
  if (externalMemory() - since <= GARBAGE_BYTES) return;
  collectGarbage();
  since = externalMemory();
  // V8 counts the freed buffers off a moment later.
  setTimeout(() => (since = Math.min(since, externalMemory())), 100).unref();
}

let busy = 0;

/**
 * An upload request or a piece of image work begins: a collection waiting for quiet is called off.
 * Call the function returned when it has ended (once).
 */
export function busyWithImages(): () => void {
  busy++;
  if (timer) clearTimeout(timer);
  timer = null;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--busy > 0) return;
    timer = setTimeout(settled, SETTLE_MS);
    // A quiet server may exit meanwhile.
    timer.unref();
  };
}
