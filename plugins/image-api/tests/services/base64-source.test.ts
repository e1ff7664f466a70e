import { decodeBase64Source, decodedLength } from '../../server/src/services/base64-source';
import { refusal } from '../refusal';

const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xfb, 0xef]);


describe('decodeBase64Source', () => {
  test.each([
    ['standard with padding', bytes.toString('base64')],
    ['URL-safe without padding', bytes.toString('base64url')],
    ['data URI', `data:image/jpeg;base64,${bytes.toString('base64')}`],
    ['data URI with parameters', `data:image/jpeg;name=a.jpg;base64,${bytes.toString('base64')}`],
    ['whitespace and line breaks', ` ${bytes.toString('base64').replace(/(.{4})/g, '$1\n')}\t`],
  ])('%s', (_label, text) => {
    expect(decodeBase64Source(text, 1000).equals(bytes)).toBe(true);
  });

  test.each([['empty', ''], ['spaces only', '   '], ['bad characters', 'abc$def'], ['impossible length', 'abcde'], ['padding inside', 'ab==cd']])(
    'refuses %s with 400/120',
    async (_label, text) => {
      expect(await refusal(() => decodeBase64Source(text, 1000))).toMatchObject({ status: 400, code: 120 });
    }
  );

  test('refuses more than maxBytes decoded with 413/313, before decoding', async () => {
    const text = Buffer.alloc(1001).toString('base64');
    expect(await refusal(() => decodeBase64Source(text, 1000))).toMatchObject({ status: 413, code: 313 });
    expect(decodeBase64Source(Buffer.alloc(1000).toString('base64'), 1000).length).toBe(1000);
  });

  test('the one-pass path and the careful one agree: every length, both alphabets, stray characters anywhere', async () => {
    for (let n = 1; n < 40; n++) {
      const b = Buffer.from(Array.from({ length: n }, (_, i) => (i * 97 + n) & 0xff));
      for (const text of [b.toString('base64'), b.toString('base64url'), b.toString('base64').replace(/=+$/, '')]) {
        expect(decodeBase64Source(text, 1000).equals(b)).toBe(true);
        // A character outside both alphabets, wherever it is, is refused: never silently skipped.
        for (const at of [0, Math.floor(text.length / 2), text.length - 1]) {
          for (const stray of ['$', '.', '\u00e9', '%']) {
            const bad = text.slice(0, at) + stray + text.slice(at);
            expect(await refusal(() => decodeBase64Source(bad, 1000))).toMatchObject({ status: 400, code: 120 });
          }
        }
      }
    }
  });

  test('decodedLength matches Buffer for every padding case', () => {
    for (let n = 0; n < 10; n++) {
      const b = Buffer.alloc(n, 1);
      expect(decodedLength(b.toString('base64'))).toBe(n);
      expect(decodedLength(b.toString('base64url'))).toBe(n);
    }
  });
});
