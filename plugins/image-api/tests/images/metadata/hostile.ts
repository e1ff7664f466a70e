/** What the container walkers' tests share: the walkers' only refusal, and mutated files thrown at them. */
import { isApiError } from '../../../server/src/http/api-error';
import type { Stripped } from '../../../server/src/images/metadata/strip-metadata';
import { rng } from '../../../../../tests/helpers/hostile-corpus';

export type Walker = (bytes: Buffer, write?: boolean) => Stripped;

/** The walker's answer: what it removed, or the refusal it threw (anything else is rethrown: a test failure). */
export function outcome(walker: Walker, bytes: Buffer): { removed: string[]; length: number } | { status: number; code: number; message: string } {
  try {
    const { bytes: out, removed } = walker(bytes);
    return { removed: removed.map((r) => r.what), length: out.length };
  } catch (error) {
    if (!isApiError(error)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
}

/**
 * `rounds` mutations of `bytes` (cut short, bytes overwritten with random or extreme values, a stretch
 * repeated): each is either stripped into no more bytes than it had, or refused as an invalid image.
 */
export function expectOnlyRefusals(walker: Walker, bytes: Buffer, rounds = 400): void {
  const random = rng(bytes.length);
  for (let round = 0; round < rounds; round++) {
    const mutated = Buffer.from(bytes);
    const kind = round % 4;
    let input: Buffer = mutated;
    if (kind === 0) input = mutated.subarray(0, random.int(0, bytes.length - 1));
    else if (kind === 1) for (let i = 0; i < 4; i++) mutated[random.int(0, bytes.length - 1)] = random.int(0, 255);
    else if (kind === 2) mutated.fill(random.next() < 0.5 ? 0xff : 0x00, random.int(0, bytes.length - 1)).subarray(0, bytes.length);
    else {
      const at = random.int(0, bytes.length - 1);
      input = Buffer.concat([mutated.subarray(0, at), mutated.subarray(at, at + random.int(1, 64)), mutated.subarray(at)]);
    }
    const result = outcome(walker, input);
    if ('code' in result) expect(result).toMatchObject({ status: 400, code: 311 });
    else expect(result.length).toBeLessThanOrEqual(input.length);
  }
}

// Walks over megabytes of hostile structure (hundreds of thousands of chunks, endless stuffing) take
// tens of milliseconds; a walk that is not linear would take minutes, past the suite's time limit.
// How fast the walks are is measured by the upload benchmark, not asserted here.
