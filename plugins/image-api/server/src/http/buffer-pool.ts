/**
 * Reusable byte buffers for received images. Every Buffer Node allocates counts as V8 external
 * memory, and each 64 MB of it starts a full mark-compact of the whole heap (Strapi's is about 70 MB:
 * tens of milliseconds of CPU each time). At upload rates those collections cost more than the
 * request's HTTP and database work, so an image part is copied into a buffer lent by this pool, not
 * into a new one, and the buffer is given back when the request has ended.
 *
 * Buffers come in size classes four to a power of two (2^(k/4), whole pages), so a lease wastes at
 * most a fifth of what it holds: in powers of two a 5.3 MB phone photo took 8 MB, and 16 of them
 * waiting for the image work held 43 MB more than their bytes. The pool keeps at most
 * `maxIdleBytes` of idle ones, so an idle server holds a bounded amount.
 */

export interface BufferLease {
  /** Exactly the bytes asked for (a view of the pooled buffer). */
  bytes: Buffer;
  /** Gives the buffer back; `bytes` must not be used afterwards. Idempotent. */
  release(): void;
}

export interface BufferPoolOptions {
  /** Smallest buffer handed out (smaller requests are rounded up to it). */
  minBytes: number;
  /** Larger requests get a buffer of their own, never pooled. */
  maxBytes: number;
  /** Idle bytes kept for reuse, across all sizes. */
  maxIdleBytes: number;
}

const PAGE = 4096;
/** Size classes per power of two. */
const STEPS = 4;

/** Past this, classes are whole pages. */
const PAGED = 64 * 1024;

/** The smallest size class of at least `n` bytes: 2^(k/STEPS), in whole pages from PAGED up. */
export function sizeClass(n: number): number {
  const exponent = Math.ceil(Math.log2(Math.max(1, n)) * STEPS) / STEPS;
  const round = (bytes: number) => (bytes >= PAGED ? Math.ceil(bytes / PAGE) * PAGE : Math.ceil(bytes));
  // Floating point may land a hair under n: the next class then.
  const size = round(2 ** exponent);
  return size >= n ? size : round(2 ** (exponent + 1 / STEPS));
}

export class BufferPool {
  private readonly idle = new Map<number, Buffer[]>();
  private idleBytes = 0;

  constructor(private readonly options: BufferPoolOptions) {}

  /** A buffer of `size` bytes with undefined contents: the caller overwrites all of it. */
  acquire(size: number): BufferLease {
    const capacity = Math.max(this.options.minBytes, sizeClass(size));
    if (capacity > this.options.maxBytes) return { bytes: Buffer.allocUnsafeSlow(size), release: () => undefined };
    const reused = this.idle.get(capacity)?.pop();
    if (reused) this.idleBytes -= capacity;
    const whole = reused ?? Buffer.allocUnsafeSlow(capacity);
    // The caller overwrites `bytes`; the rest of the buffer is zeroed, so nothing that reaches past
    // the view (through `.buffer`) ever sees an earlier request's bytes.
    whole.fill(0, size);
    let released = false;
    return {
      bytes: whole.subarray(0, size),
      release: () => {
        if (released) return;
        released = true;
        if (this.idleBytes + capacity > this.options.maxIdleBytes) return;
        const list = this.idle.get(capacity) ?? [];
        list.push(whole);
        this.idle.set(capacity, list);
        this.idleBytes += capacity;
      },
    };
  }

  /** Bytes held idle, for tests and diagnostics. */
  get idleSize(): number {
    return this.idleBytes;
  }
}
