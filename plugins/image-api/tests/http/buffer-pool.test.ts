import { BufferPool, sizeClass } from '../../server/src/http/buffer-pool';

const KB = 1024;
const pool = () => new BufferPool({ minBytes: 256 * KB, maxBytes: 4096 * KB, maxIdleBytes: 8192 * KB });

test('a lease has exactly the size asked for, in a buffer of its size class (four to a power of two, whole pages from 64 KB), at least minBytes', () => {
  const p = pool();
  for (const size of [1, 1000, 256 * KB, 256 * KB + 1, 3_100_000, 4096 * KB]) {
    const lease = p.acquire(size);
    expect(lease.bytes.length).toBe(size);
    expect(lease.bytes.buffer.byteLength).toBe(Math.max(256 * KB, sizeClass(size)));
  }
  // The classes: 2^(k/4), rounded up to 4 KB pages; never under the size, never a fifth over it.
  expect([1024, 1536, 1945].map((kb) => sizeClass(kb * KB) / KB)).toEqual([1024, 1724, 2048]);
  expect(sizeClass(5_300_000)).toBe(5_935_104);
  for (let size = 300 * KB; size < 40_000 * KB; size = Math.ceil(size * 1.037)) {
    const capacity = sizeClass(size);
    expect(capacity).toBeGreaterThanOrEqual(size);
    if (capacity >= 64 * KB) expect(capacity % 4096).toBe(0);
    expect(capacity / size).toBeLessThan(1.2);
  }
});

test('a released buffer is lent again for a request of the same size class, and only once', () => {
  const p = pool();
  const first = p.acquire(900 * KB);
  const underlying = first.bytes.buffer;
  first.release();
  first.release(); // idempotent: the buffer is not listed twice
  expect(p.idleSize).toBe(1024 * KB);
  const second = p.acquire(1000 * KB);
  expect(second.bytes.buffer).toBe(underlying);
  expect(p.idleSize).toBe(0);
  const third = p.acquire(1000 * KB);
  expect(third.bytes.buffer).not.toBe(underlying);
});

test('a buffer in use is never lent to anyone else', () => {
  const p = pool();
  const leases = Array.from({ length: 6 }, () => p.acquire(300 * KB));
  expect(new Set(leases.map((l) => l.bytes.buffer)).size).toBe(6);
  leases.forEach((l) => l.release());
  const again = Array.from({ length: 6 }, () => p.acquire(300 * KB));
  expect(new Set(again.map((l) => l.bytes.buffer)).size).toBe(6);
});

test('idle bytes stay under maxIdleBytes; requests over maxBytes are not pooled', () => {
  const p = pool();
  const leases = Array.from({ length: 5 }, () => p.acquire(2048 * KB));
  leases.forEach((l) => l.release());
  expect(p.idleSize).toBe(8192 * KB); // 4 of the 5 kept
  const big = p.acquire(5000 * KB);
  expect(big.bytes.length).toBe(5000 * KB);
  big.release();
  expect(p.idleSize).toBe(8192 * KB);
});

test("past the lent bytes the buffer is zeroed: an earlier request's bytes are never reachable through it", () => {
  const p = pool();
  const first = p.acquire(900 * KB);
  first.bytes.fill(0xab);
  first.release();
  const second = p.acquire(870 * KB);
  expect(second.bytes.buffer).toBe(first.bytes.buffer);
  const whole = new Uint8Array(second.bytes.buffer);
  expect(whole.subarray(870 * KB).every((b) => b === 0)).toBe(true);
});
