/**
 * The blocklist on the real database (SQLite, PostgreSQL, MariaDB): exact matches by SHA-256 and
 * MD5, perceptual ones by PDQ within the distance and not beyond, lists imported with their bad lines
 * and duplicates, the rows as stored.
 */
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import type createBlocklist from '../../../plugins/image-api/server/src/moderation/blocklist';
import type { BlockKind } from '../../../plugins/image-api/server/src/moderation/blocklist';
import { hammingDistance, pdqBands, pdqOf } from '../../../plugins/image-api/server/src/moderation/pdq';

const app = useApp();
const blocklist = () => app.strapi.plugin('image-api').service('blocklist') as ReturnType<typeof createBlocklist>;
const rows = (): Promise<Array<Record<string, any>>> => app.strapi.db.connection('image_api_blocks').select('*').orderBy('id');

afterEach(async () => {
  await app.strapi.db.connection('image_api_blocks').del();
  // A removal (of no row here) makes the service forget which kinds it knew listed.
  await blocklist().remove([-1]);
});

const photo = (name: string) => fs.readFileSync(path.join(__dirname, '../../fixtures/photos', name));
const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');
const none = { sha256: [], md5: [], pdq: null };

/** `hash` with the bits at `positions` flipped. */
function flip(hash: string, positions: number[]): string {
  const bytes = Buffer.from(hash, 'hex');
  for (const p of positions) bytes[p >> 3] ^= 1 << (p & 7);
  return bytes.toString('hex');
}
/** Positions spread over every word: a hash this far from another shares no word with it. */
const spread = (count: number) => Array.from({ length: count }, (_, i) => (i % 16) * 16 + Math.floor(i / 16));

describe('exact hashes', () => {
  it('matches a listed SHA-256 or MD5, in either case, and says what it matched', async () => {
    const bytes = photo('q1050.jpg');
    expect(await blocklist().add([{ kind: 'sha256', hash: sha256(bytes).toUpperCase() }], { source: 'takedown', imageId: 'AbCdEfGhIj', note: 'spam' })).toBe(1);
    expect(await blocklist().add([{ kind: 'md5', hash: md5(photo('q2821.jpg')) }], { source: 'import' })).toBe(1);

    const bySha = await blocklist().check({ sha256: ['0'.repeat(64), sha256(bytes)], md5: [], pdq: null });
    expect(bySha).toEqual({ id: expect.any(Number), kind: 'sha256', hash: sha256(bytes), distance: 0, source: 'takedown', imageId: 'AbCdEfGhIj', note: 'spam' });
    const byMd5 = await blocklist().check({ sha256: [], md5: [md5(photo('q2821.jpg')).toUpperCase()], pdq: null });
    expect(byMd5).toEqual({ id: expect.any(Number), kind: 'md5', hash: md5(photo('q2821.jpg')), distance: 0, source: 'import', imageId: null, note: null });

    expect(await blocklist().check({ sha256: [sha256(photo('q0291.jpg'))], md5: [md5(photo('q0291.jpg'))], pdq: null })).toBeNull();
    // A SHA-256 is no MD5: kinds are not mixed up.
    expect(await blocklist().check({ sha256: [], md5: [sha256(bytes).slice(0, 32)], pdq: null })).toBeNull();
    expect(await blocklist().check(none)).toBeNull();
  });

  it('prefers a SHA-256 match when both kinds match', async () => {
    const bytes = photo('q1050.jpg');
    await blocklist().add([{ kind: 'md5', hash: md5(bytes) }], { source: 'import' });
    await blocklist().add([{ kind: 'sha256', hash: sha256(bytes) }], { source: 'takedown', imageId: 'x1' });
    expect(await blocklist().check({ sha256: [sha256(bytes)], md5: [md5(bytes)], pdq: null })).toMatchObject({ kind: 'sha256', imageId: 'x1' });
  });
});

describe('perceptual hashes', () => {
  it('matches the same photo re-encoded and resized, within the distance, the closest entry first', async () => {
    const original = await pdqOf(photo('bridge-512.jpg'));
    const other = await pdqOf(photo('q0746.jpg'));
    await blocklist().add([{ kind: 'pdq', hash: other.hash }], { source: 'import' });
    await blocklist().add([{ kind: 'pdq', hash: original.hash }], { source: 'takedown', imageId: 'bridge' });
    // A farther entry of the same picture: the closest one answers.
    await blocklist().add([{ kind: 'pdq', hash: flip(original.hash, spread(20)) }], { source: 'import', note: 'far' });

    const altered = await sharp(photo('bridge-512.jpg')).resize(400).jpeg({ quality: 50 }).toBuffer();
    const query = (await pdqOf(altered)).hash;
    const distance = hammingDistance(query, original.hash);
    expect(distance).toBeGreaterThan(0);
    expect(await blocklist().check({ sha256: [sha256(altered)], md5: [], pdq: query })).toEqual({
      id: expect.any(Number),
      kind: 'pdq',
      hash: original.hash,
      distance,
      source: 'takedown',
      imageId: 'bridge',
      note: null,
    });
    // Another photo is far from all three.
    expect(await blocklist().check({ ...none, pdq: (await pdqOf(photo('q2821.jpg'))).hash })).toBeNull();
  });

  // The words of the hash that differ are chosen so the lookup's pigeonhole is tight: at 31, 15
  // words differ by 2 bits and one by 1; at 32, every word by 2 (no word within 1 bit: no candidate).
  test.each([
    [31, 31, true],
    [32, 31, false],
    [15, 15, true],
    [16, 15, false],
    [47, 47, true],
    [48, 47, false],
    [0, 0, true],
    [1, 0, false],
    [20, 31, true],
  ])('a hash %i bits away, distance %i: matched %s', async (bits, blockDistance, matched) => {
    const listed = (await pdqOf(photo('q1050.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash: listed }], { source: 'import' });
    const query = flip(listed, spread(bits));
    expect(hammingDistance(query, listed)).toBe(bits);
    const match = await blocklist().check({ ...none, pdq: query }, blockDistance);
    expect(match === null ? null : match.distance).toBe(matched ? bits : null);
  });

  it('refuses a distance past 47', async () => {
    await expect(blocklist().check({ ...none, pdq: '0'.repeat(64) }, 48)).rejects.toThrow('blocklist: a distance of 0 to 47 bits, not 48');
  });

  it('takes the distance from moderation.blockDistance when not given (31)', async () => {
    const listed = (await pdqOf(photo('q1050.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash: listed }], { source: 'import' });
    expect(await blocklist().check({ ...none, pdq: flip(listed, spread(31)) })).toMatchObject({ distance: 31 });
    expect(await blocklist().check({ ...none, pdq: flip(listed, spread(32)) })).toBeNull();
  });

  it('stores the 16 words of the hash in their columns', async () => {
    const hash = (await pdqOf(photo('q0291.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash }], { source: 'takedown', imageId: 'q0291', note: 'why' });
    const [row] = await rows();
    expect(row).toMatchObject({ kind: 'pdq', hash, source: 'takedown', image_id: 'q0291', note: 'why' });
    expect(Array.from({ length: 16 }, (_, i) => Number(row[`b_${i}`]))).toEqual(pdqBands(hash));
    expect(pdqBands(hash)[0]).toBe(parseInt(hash.slice(60), 16));
  });
});

/** Looks `probe` up until this process's copy of the PDQ hashes is loaded (it loads in the background). */
async function copyLoaded(probe: string): Promise<void> {
  const start = Date.now();
  for (;;) {
    await blocklist().check({ ...none, pdq: probe });
    if (blocklist().mirrorState().loaded) return;
    expect(Date.now() - start).toBeLessThan(10_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A PDQ row as another instance writes it: straight into the table, its 16 words in their columns. */
const pdqRow = (hash: string) => ({ kind: 'pdq', hash, source: 'import', ...Object.fromEntries(pdqBands(hash).map((word, i) => [`b_${i}`, word])) });

/** Waits until check() of `pdq` says `matched`; fails past 1.5 s. */
async function untilMatched(pdq: string, matched: boolean): Promise<number> {
  const start = Date.now();
  while (((await blocklist().check({ ...none, pdq })) !== null) !== matched) {
    expect(Date.now() - start).toBeLessThan(1500);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - start;
}

describe("the copy in memory of the PDQ hashes (uploads' lookups)", () => {
  it('answers as the table does, at every distance around the pigeonhole', async () => {
    const listed = (await pdqOf(photo('q1050.jpg'))).hash;
    const others = Array.from({ length: 300 }, (_, i) => crypto.createHash('sha256').update(`other ${i}`).digest('hex'));
    await blocklist().importText('pdq', [listed, ...others].join('\n'));
    await copyLoaded(listed);
    expect(blocklist().mirrorState()).toMatchObject({ entries: 301, loaded: true });
    for (const [bits, distance] of [[31, 31], [32, 31], [15, 15], [16, 15], [47, 47], [48, 47], [0, 0], [1, 0], [20, 31]]) {
      const query = flip(listed, spread(bits));
      const fromCopy = await blocklist().check({ ...none, pdq: query }, distance);
      expect(fromCopy).toEqual(await blocklist().perceptualMatchInTable(query, distance));
      expect(fromCopy === null ? null : fromCopy.distance).toBe(bits <= distance ? bits : null);
    }
  });

  it("hears another instance's entries within a second, and its removals", async () => {
    const mine = (await pdqOf(photo('q0291.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash: mine }], { source: 'import' });
    await copyLoaded(mine);
    const theirs = (await pdqOf(photo('bridge-512.jpg'))).hash;
    const near = flip(theirs, spread(12));
    expect(await blocklist().check({ ...none, pdq: near })).toBeNull();
    await app.strapi.db.connection('image_api_blocks').insert(pdqRow(theirs));
    expect(await untilMatched(near, true)).toBeLessThan(1500);
    expect(blocklist().mirrorState()).toMatchObject({ entries: 2, loaded: true });
    // Removed by another instance: straight from the table.
    await app.strapi.db.connection('image_api_blocks').where({ kind: 'pdq', hash: theirs }).del();
    expect(await untilMatched(near, false)).toBeLessThan(1500);
    // The copy reloaded meanwhile (the table answered); this instance's own entry still matches.
    await copyLoaded(mine);
    expect(await blocklist().check({ ...none, pdq: flip(mine, spread(5)) })).toMatchObject({ distance: 5 });
  });

  it("counts this instance's additions and removals at once", async () => {
    const first = (await pdqOf(photo('q0291.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash: first }], { source: 'import' });
    await copyLoaded(first);
    const second = (await pdqOf(photo('q2821.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash: second }], { source: 'takedown', imageId: 'q2821' });
    expect(await blocklist().check({ ...none, pdq: second })).toMatchObject({ distance: 0, imageId: 'q2821' });
    expect(blocklist().mirrorState()).toMatchObject({ entries: 2, loaded: true });
    const row = (await rows()).find((r) => r.hash === second)!;
    await blocklist().remove([Number(row.id)]);
    expect(await blocklist().check({ ...none, pdq: second })).toBeNull();
  });
});

describe('which kinds are listed', () => {
  it('knows at once what this instance adds, and what is removed', async () => {
    expect(await blocklist().listedKinds()).toEqual({ sha256: false, md5: false, pdq: false });
    await blocklist().add([{ kind: 'pdq', hash: 'f'.repeat(64) }], { source: 'import' });
    expect(await blocklist().listedKinds()).toEqual({ sha256: false, md5: false, pdq: true });
    const [row] = await rows();
    expect(await blocklist().remove([Number(row.id)])).toBe(1);
    expect(await blocklist().listedKinds()).toEqual({ sha256: false, md5: false, pdq: false });
  });

  it("hears another instance's entries within a second", async () => {
    expect((await blocklist().listedKinds()).md5).toBe(false);
    // As another instance writes it: straight into the table.
    await app.strapi.db.connection('image_api_blocks').insert({ kind: 'md5', hash: 'a'.repeat(32), source: 'import' });
    const start = Date.now();
    while (!(await blocklist().listedKinds()).md5) {
      expect(Date.now() - start).toBeLessThan(1500);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});

describe('add', () => {
  it('skips what is listed already, and repeats within one call', async () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    expect(await blocklist().add([{ kind: 'sha256', hash: a }], { source: 'import' })).toBe(1);
    expect(await blocklist().add([{ kind: 'sha256', hash: a.toUpperCase() }, { kind: 'sha256', hash: b }, { kind: 'sha256', hash: b }, { kind: 'pdq', hash: a }], { source: 'takedown', imageId: 'AbC' })).toBe(2);
    expect((await rows()).map(({ kind, hash, source, image_id }) => ({ kind, hash, source, image_id }))).toEqual([
      { kind: 'sha256', hash: a, source: 'import', image_id: null },
      { kind: 'sha256', hash: b, source: 'takedown', image_id: 'AbC' },
      { kind: 'pdq', hash: a, source: 'takedown', image_id: 'AbC' },
    ]);
    expect(await blocklist().count()).toEqual({ sha256: 2, md5: 0, pdq: 1 });
  });

  it('refuses a hash not of its kind, adding nothing', async () => {
    await expect(blocklist().add([{ kind: 'md5', hash: 'a'.repeat(32) }, { kind: 'md5', hash: 'a'.repeat(64) }], { source: 'import' })).rejects.toThrow(
      `blocklist: "${'a'.repeat(64)}" is not a md5 hash`
    );
    await expect(blocklist().add([{ kind: 'pdq', hash: 'g'.repeat(64) }], { source: 'import' })).rejects.toThrow();
    expect(await rows()).toEqual([]);
  });

  it("is part of the caller's transaction: rolled back with it", async () => {
    await expect(
      app.strapi.db.transaction(async ({ trx }) => {
        expect(await blocklist().add([{ kind: 'md5', hash: 'c'.repeat(32) }], { source: 'takedown', imageId: 'Zz' }, trx)).toBe(1);
        throw new Error('the takedown failed');
      })
    ).rejects.toThrow('the takedown failed');
    expect(await rows()).toEqual([]);
  });
});

describe('importText', () => {
  it('adds one hash a line; skips blanks and comments; counts duplicates; names bad lines', async () => {
    const pdqA = (await pdqOf(photo('q0746.jpg'))).hash;
    const pdqB = (await pdqOf(photo('q1050.jpg'))).hash;
    await blocklist().add([{ kind: 'pdq', hash: pdqB }], { source: 'takedown' });
    const text = [
      '# PDQ hashes, as the reference tools write them: hash,quality[,file]',
      '',
      `${pdqA},100`,
      `  ${pdqB.toUpperCase()},87,/photos/x.jpg`,
      pdqA,
      'not a hash',
      `${pdqA.slice(0, 63)}`,
      `${pdqA}0`,
      '\t',
      `${'f'.repeat(64)} whatever`,
    ].join('\r\n');
    expect(await blocklist().importText('pdq', text, 'list of 2026-11-26')).toEqual({ added: 2, duplicates: 2, invalid: [6, 7, 8], invalidCount: 3 });
    expect((await rows()).map(({ hash, source, note }) => ({ hash, source, note }))).toEqual([
      { hash: pdqB, source: 'takedown', note: null },
      { hash: pdqA, source: 'import', note: 'list of 2026-11-26' },
      { hash: 'f'.repeat(64), source: 'import', note: 'list of 2026-11-26' },
    ]);
    expect(await blocklist().check({ ...none, pdq: pdqA })).toMatchObject({ kind: 'pdq', hash: pdqA, distance: 0 });
  });

  it("reads sha256sum's and md5sum's output, and names only the first 20 bad lines", async () => {
    const lines = [`${'1'.repeat(64)}  photo one.jpg`, `${'2'.repeat(64)} *binary.png`, ...Array.from({ length: 25 }, (_, i) => `bad ${i}`)];
    expect(await blocklist().importText('sha256', `\uFEFF${lines.join('\n')}\n`)).toEqual({
      added: 2,
      duplicates: 0,
      invalid: Array.from({ length: 20 }, (_, i) => i + 3),
      invalidCount: 25,
    });
    expect(await blocklist().importText('md5', '')).toEqual({ added: 0, duplicates: 0, invalid: [], invalidCount: 0 });
    expect(await blocklist().count()).toEqual({ sha256: 2, md5: 0, pdq: 0 });
  });

  it('imports 20,000 lines in one go, and finds one of them', async () => {
    const hashes = Array.from({ length: 20_000 }, () => crypto.randomBytes(32).toString('hex'));
    const started = Date.now();
    const result = await blocklist().importText('pdq', hashes.map((hash) => `${hash},100`).join('\n'));
    const seconds = (Date.now() - started) / 1000;
    expect(result).toEqual({ added: 20_000, duplicates: 0, invalid: [], invalidCount: 0 });
    expect(seconds).toBeLessThan(30);
    expect(await blocklist().count()).toEqual({ sha256: 0, md5: 0, pdq: 20_000 });
    const near = flip(hashes[12_345], spread(25));
    expect(await blocklist().check({ ...none, pdq: near })).toMatchObject({ hash: hashes[12_345], distance: 25 });
    // Again: every line a duplicate.
    expect(await blocklist().importText('pdq', hashes.slice(0, 1000).join('\n'))).toEqual({ added: 0, duplicates: 1000, invalid: [], invalidCount: 0 });
  }, 120_000);

  it('refuses an unknown kind', async () => {
    await expect(blocklist().importText('sha1' as BlockKind, 'a'.repeat(40))).rejects.toThrow('blocklist: no kind "sha1"');
  });
});
