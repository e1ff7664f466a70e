/**
 * The listed PDQ hashes in memory, indexed for a lookup within a Hamming distance: the same
 * multi-index hashing as the table's band columns (moderation/blocklist.ts), without a database.
 * Two hashes within d bits differ by at most floor(d / 16) bits in at least one of their 16 words of
 * 16 bits (pigeonhole): the candidates are the entries whose word i, for some i, is within that
 * radius of the query's word i. For each word, the entries are sorted by its value (two typed
 * arrays: the values, the entries' indexes), so a value's entries are one binary search away; each
 * candidate's distance is 8 popcounts of 32-bit words.
 *
 * Memory: 136 bytes an entry (the hash as 8 32-bit words, 32; its id, 8; per word a 16-bit value
 * and a 32-bit index, 16 × 6 = 96): 13.6 MB per 100,000 entries, with the build's buffers as much
 * again while it runs. Entries added after the build (added()) are kept apart and scanned, until
 * they are enough to be worth a new build.
 */
import { pdqBands } from './pdq';

export interface PdqEntry {
  id: number;
  hash: string;
}

export interface PdqHit {
  id: number;
  distance: number;
}

const WORDS = 8;
const BANDS = 16;
/** Bytes an indexed entry holds (see above), for the memory the docs state. */
export const PDQ_INDEX_BYTES_PER_ENTRY = WORDS * 4 + 8 + BANDS * 6;

/** Entries scanned apart from the sorted arrays before they are sorted in: past this, or past an eighth of the index. */
const UNSORTED_MAX = 2048;

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** A hash's 256 bits as 8 words of 32 bits (word k: bands 2k and 2k+1), written into `into` at `at`. */
function writeWords(hash: string, into: Uint32Array, at: number): void {
  for (let k = 0; k < WORDS; k++) into[at + k] = parseInt(hash.slice(56 - 8 * k, 64 - 8 * k), 16) >>> 0;
}

/** Every 16-bit value within `radius` bits of `word` (radius 0, 1 or 2), written to `into`; returns how many. */
function neighboursInto(word: number, radius: number, into: Uint16Array): number {
  let n = 0;
  into[n++] = word;
  for (let i = 0; i < 16 && radius >= 1; i++) {
    into[n++] = word ^ (1 << i);
    for (let j = i + 1; j < 16 && radius >= 2; j++) into[n++] = word ^ (1 << i) ^ (1 << j);
  }
  return n;
}

/** First position in `values` (sorted) holding `value` or more. */
function lowerBound(values: Uint16Array, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class PdqIndex {
  /** Entries indexed: the sorted part first, then those added since (scanned). */
  private words = new Uint32Array(0);
  private ids = new Float64Array(0);
  private count = 0;
  private sorted = 0;
  /** Per band: the sorted entries' values of that band, and their indexes. */
  private bandValues: Uint16Array[] = [];
  private bandEntries: Uint32Array[] = [];
  private readonly query = new Uint32Array(WORDS);
  private readonly neighbours = new Uint16Array(1 + 16 + 120);

  constructor(entries: PdqEntry[] = []) {
    this.add(entries);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held (the typed arrays), for the metric and the docs. */
  get bytes(): number {
    return this.words.byteLength + this.ids.byteLength + this.bandValues.reduce((sum, v, i) => sum + v.byteLength + this.bandEntries[i].byteLength, 0);
  }

  /** Adds entries (not checked for duplicates: the table's unique index sees to that). */
  add(entries: PdqEntry[]): void {
    if (entries.length === 0) return;
    const needed = this.count + entries.length;
    if (needed > this.ids.length) {
      const capacity = Math.max(needed, Math.ceil(this.ids.length * 1.25));
      const words = new Uint32Array(capacity * WORDS);
      words.set(this.words.subarray(0, this.count * WORDS));
      const ids = new Float64Array(capacity);
      ids.set(this.ids.subarray(0, this.count));
      this.words = words;
      this.ids = ids;
    }
    for (const { id, hash } of entries) {
      writeWords(hash, this.words, this.count * WORDS);
      this.ids[this.count++] = id;
    }
    const unsorted = this.count - this.sorted;
    if (unsorted > UNSORTED_MAX || unsorted * 8 > this.count) this.build();
  }

  /** Sorts every entry in: per band, a counting sort by the band's 16-bit value. */
  private build(): void {
    const n = this.count;
    const counts = new Uint32Array(65537);
    this.bandValues = [];
    this.bandEntries = [];
    for (let band = 0; band < BANDS; band++) {
      const word = band >> 1;
      const shift = (band & 1) * 16;
      counts.fill(0);
      for (let e = 0; e < n; e++) counts[((this.words[e * WORDS + word] >>> shift) & 0xffff) + 1]++;
      for (let v = 0; v < 65536; v++) counts[v + 1] += counts[v];
      const values = new Uint16Array(n);
      const entries = new Uint32Array(n);
      for (let e = 0; e < n; e++) {
        const value = (this.words[e * WORDS + word] >>> shift) & 0xffff;
        const at = counts[value]++;
        values[at] = value;
        entries[at] = e;
      }
      this.bandValues.push(values);
      this.bandEntries.push(entries);
    }
    this.sorted = n;
  }

  private distanceTo(e: number): number {
    const at = e * WORDS;
    let d = 0;
    for (let k = 0; k < WORDS; k++) d += popcount32(this.query[k] ^ this.words[at + k]);
    return d;
  }

  /**
   * The entry closest to `hash` within `distance` bits (0..47), or null; of entries at one distance,
   * the one of the lowest id.
   */
  closest(hash: string, distance: number): PdqHit | null {
    writeWords(hash, this.query, 0);
    let best = -1;
    let bestDistance = distance + 1;
    const consider = (e: number) => {
      const d = this.distanceTo(e);
      if (d < bestDistance || (d === bestDistance && this.ids[e] < this.ids[best])) {
        best = e;
        bestDistance = d;
      }
    };
    if (this.sorted > 0) {
      const radius = Math.floor(distance / 16);
      const bands = pdqBands(hash);
      for (let band = 0; band < BANDS; band++) {
        const values = this.bandValues[band];
        const entries = this.bandEntries[band];
        const n = neighboursInto(bands[band], radius, this.neighbours);
        for (let i = 0; i < n; i++) {
          const value = this.neighbours[i];
          for (let at = lowerBound(values, value); at < values.length && values[at] === value; at++) consider(entries[at]);
        }
      }
    }
    for (let e = this.sorted; e < this.count; e++) consider(e);
    return best < 0 ? null : { id: this.ids[best], distance: bestDistance };
  }
}
