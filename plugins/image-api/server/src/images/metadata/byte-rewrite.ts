/**
 * What the container walkers share: the input is read once, front to back, and each stretch of it is
 * either kept or dropped. Kept bytes are copied as they are (never decoded), into one output buffer no
 * larger than the input, allocated only once something kept follows something dropped: a file with
 * nothing to remove comes back as the very same Buffer, a file with only a tail to drop as a view of
 * it. What was dropped is tallied under a name from each walker's fixed vocabulary, so a file of a
 * million comment blocks costs one tally entry, not a million.
 */

/** A kind of thing removed (a JPEG segment, a PNG chunk type, "after EOI"...), how many and their bytes. */
export interface Removed {
  what: string;
  count: number;
  bytes: number;
}

export interface Stripped {
  /** The file without its metadata: the input itself when nothing was removed or changed. */
  bytes: Buffer;
  removed: Removed[];
}

export class ByteRewrite {
  /** Input bytes before `cursor` are decided (kept or dropped). */
  private cursor = 0;
  /** Bytes of output so far: input[0, written) until `out` exists, out[0, written) after. */
  private written = 0;
  private out: Buffer | null = null;
  private readonly tally = new Map<string, Removed>();

  /** `write` false: what would be removed is tallied and output positions counted, no byte is copied (a probe). */
  constructor(private readonly input: Buffer, private readonly write = true) {}

  /** Where the next output byte lands. */
  get outputPosition(): number {
    return this.written;
  }

  /** Keeps the input up to `end`. */
  keep(end: number): void {
    if (end <= this.cursor) return;
    if (this.write && (this.out || this.written !== this.cursor)) {
      this.materialize();
      this.input.copy(this.out!, this.written, this.cursor, end);
    }
    this.written += end - this.cursor;
    this.cursor = end;
  }

  /** Drops the input up to `end`, tallied as `what`. */
  drop(end: number, what: string): void {
    if (end <= this.cursor) return;
    const entry = this.tally.get(what) ?? { what, count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += end - this.cursor;
    this.tally.set(what, entry);
    this.cursor = end;
  }

  /**
   * Appends `bytes` that are not in the input: a block rewritten shorter in place of the input's,
   * dropped first, so the output still fits in the input's size.
   */
  emit(bytes: Buffer): void {
    if (this.write) {
      this.materialize();
      bytes.copy(this.out!, this.written);
    }
    this.written += bytes.length;
  }

  /** Overwrites an output byte already written (a flag), when it differs. */
  patchByte(outAt: number, value: number): void {
    if (!this.write || this.output()[outAt] === value) return;
    this.materialize();
    this.out![outAt] = value;
  }

  /** Overwrites a little-endian 32-bit field already written (a size), when it differs. */
  patchUInt32LE(outAt: number, value: number): void {
    if (!this.write || this.output().readUInt32LE(outAt) === value) return;
    this.materialize();
    this.out!.writeUInt32LE(value, outAt);
  }

  /** The output, and what was removed; a probe's output is its input. */
  result(): Stripped {
    const removed = [...this.tally.values()];
    if (!this.write || (!this.out && this.written === this.input.length)) return { bytes: this.input, removed };
    return { bytes: this.output().subarray(0, this.written), removed };
  }

  /** The buffer the output is in so far (the input's prefix until a copy was needed). */
  private output(): Buffer {
    return this.out ?? this.input;
  }

  /** From here on the output is a copy: the input is never written to. */
  private materialize(): void {
    if (this.out) return;
    this.out = Buffer.allocUnsafe(this.input.length);
    this.input.copy(this.out, 0, 0, this.written);
  }
}
