/**
 * The listed PDQ hashes' index in memory: the closest entry within a distance, as comparing the query
 * with every entry finds it, whether the entries were sorted in or added since.
 */
import crypto from 'crypto';
import { PdqIndex, PDQ_INDEX_BYTES_PER_ENTRY, type PdqEntry } from '../../server/src/moderation/pdq-index';

/** A generator of the same hashes on every run (a counter through SHA-256). */
const hashAt = (i: number) => crypto.createHash('sha256').update(`pdq-index ${i}`).digest('hex');

/** `hash` with the given bit positions (0..255) flipped. */
function flipped(hash: string, bits: number[]): string {
  const bytes = Buffer.from(hash, 'hex');
  for (const bit of bits) bytes[bit >> 3] ^= 1 << (bit & 7);
  return bytes.toString('hex');
}

const BITS = Uint8Array.from({ length: 256 }, (_, v) => [...v.toString(2)].filter((bit) => bit === '1').length);

/** Each entry's distance to `hash`, by comparing it with every entry, byte by byte. */
function distancesTo(entries: PdqEntry[], hash: string) {
  const query = Buffer.from(hash, 'hex');
  return entries.map((entry) => {
    const bytes = Buffer.from(entry.hash, 'hex');
    let distance = 0;
    for (let i = 0; i < 32; i++) distance += BITS[query[i] ^ bytes[i]];
    return { id: entry.id, distance };
  });
}

function bruteForce(distances: Array<{ id: number; distance: number }>, distance: number) {
  let best: { id: number; distance: number } | null = null;
  for (const entry of distances) {
    const d = entry.distance;
    if (d <= distance && (best === null || d < best.distance || (d === best.distance && entry.id < best.id))) best = entry;
  }
  return best;
}

describe('PdqIndex', () => {
  const entries: PdqEntry[] = Array.from({ length: 5000 }, (_, i) => ({ id: 10 + i * 3, hash: hashAt(i) }));

  it('finds what comparing every entry finds, at distances 0 to 47, bits flipped anywhere', () => {
    const index = new PdqIndex(entries);
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let q = 0; q < 300; q++) {
      const base = entries[random(entries.length)].hash;
      // Spread over the words, or crowded into a few (the pigeonhole's worst case).
      const flips = random(60);
      const bits = Array.from({ length: flips }, () => (q % 2 ? random(256) : random(48)));
      const query = flipped(base, bits);
      const distances = distancesTo(entries, query);
      for (const distance of [0, 10, 15, 16, 31, 32, 47]) expect(index.closest(query, distance)).toEqual(bruteForce(distances, distance));
    }
  });

  it('finds nothing for a hash far from every entry', () => {
    const index = new PdqIndex(entries);
    expect(index.closest(hashAt(999_999), 31)).toBeNull();
  });

  it('finds entries added after the build (scanned), and sorts them in once they are many', () => {
    const index = new PdqIndex(entries.slice(0, 1000));
    const later = entries.slice(1000, 1010);
    index.add(later);
    expect(index.size).toBe(1010);
    expect(index.closest(flipped(later[3].hash, [1, 77, 200]), 31)).toEqual({ id: later[3].id, distance: 3 });
    index.add(entries.slice(1010));
    expect(index.size).toBe(entries.length);
    for (const entry of [entries[0], entries[2500], entries[4999]]) expect(index.closest(flipped(entry.hash, [5, 6, 7, 8, 9]), 31)).toEqual({ id: entry.id, distance: 5 });
  });

  it('prefers the nearer entry, and of two at one distance the lower id', () => {
    const hash = hashAt(1);
    const index = new PdqIndex([
      { id: 9, hash: flipped(hash, [1, 2, 3]) },
      { id: 5, hash: flipped(hash, [4, 5, 6]) },
      { id: 2, hash: flipped(hash, [7, 8, 9, 10]) },
    ]);
    expect(index.closest(hash, 31)).toEqual({ id: 5, distance: 3 });
    expect(index.closest(hash, 2)).toBeNull();
  });

  it('holds the bytes it says an entry costs', () => {
    const index = new PdqIndex(entries);
    expect(index.bytes).toBe(entries.length * PDQ_INDEX_BYTES_PER_ENTRY);
    expect(new PdqIndex().closest(hashAt(1), 31)).toBeNull();
  });
});
