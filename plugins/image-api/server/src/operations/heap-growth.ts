/**
 * How far V8 lets the JavaScript heap grow past its live size before the next full collection.
 *
 * Strapi's live heap is about 70 MB and an upload allocates little that lives on, so V8's own
 * heuristic settles on its smallest growth factor (1.1). That leaves less headroom than the young
 * generation's capacity, and V8 then marks the whole heap almost continuously: measured at
 * concurrency 2 with 0.6 MB PNGs, a mark-compact every 11 to 17 uploads, about 3 ms of the main
 * thread per upload plus the marking helper threads. A fixed factor of 1.5 collects a third as
 * often; 2.0 a sixth (docs/performance.md).
 *
 * The cost is memory: up to `percent`% of the live heap more before a collection, and buffers that
 * die young are freed later. The setting is process-wide (V8 has one heap per process); null leaves
 * V8's heuristic alone.
 */
import v8 from 'node:v8';

export function applyHeapGrowth(percent: number | null): void {
  if (percent === null) return;
  // Read by V8 each time it sets the next collection's limit, so it applies from the next one.
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
