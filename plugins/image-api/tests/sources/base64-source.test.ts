import crypto from 'node:crypto';
import { decodeBase64Source, decodedLength, decodeFormBase64 } from '../../server/src/sources/base64-source';
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

  test('a source that looks like a file name is told to send the file as multipart (still 400/120); other bad base64 is not', async () => {
    const told = {
      status: 400,
      code: 120,
      message: 'Invalid base64 string: the source looks like a file name; send the file itself as multipart/form-data (curl -F "source=@cat.jpg")',
    };
    for (const name of ['cat.jpg', 'C:\\x\\y.png', '@cat.jpg', ' my cat.JPEG ', './photos/cat.heic', '/home/me/cat.webp', 'C:/Photos/cat']) {
      expect([name, await refusal(() => decodeBase64Source(name, 1000))]).toEqual([name, told]);
    }
    for (const text of ['this is not base64!', '@@@@', 'abc$def', 'aGVsbG8*d29ybGQ=', '@', 'line one.jpg\nline two']) {
      expect([text, await refusal(() => decodeBase64Source(text, 1000))]).toEqual([text, { status: 400, code: 120, message: 'Invalid base64 string' }]);
    }
  });

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

describe('decodeFormBase64 (a percent-encoded value of a urlencoded body, window by window)', () => {
  /** The value inside a body with fields around it, and what the general path makes of it. */
  const inBody = (value: string) => {
    const body = Buffer.from(`key=k&source=${value}&format=json`, 'latin1');
    const start = body.indexOf('source=') + 'source='.length;
    return { body, start, end: body.indexOf('&format'), general: () => decodeBase64Source(decodeURIComponent(value), 1e9) };
  };
  const borrowed: number[] = [];
  const borrow = (size: number) => {
    borrowed.push(size);
    return Buffer.alloc(size, 0xaa);
  };
  const decode = (value: string, maxBytes = 1e9) => {
    const { body, start, end } = inBody(value);
    return decodeFormBase64(body, start, end, maxBytes, borrow);
  };

  test('gives the bytes the general path gives, for lengths that put window ends on every byte of an escape', () => {
    // Windows are 48 KiB of encoded text; these sizes move escapes and padding across their ends.
    for (const size of [1, 2, 3, 4, 100, 36_000, 36_001, 36_002, 70_000, 110_000, 110_001, 250_000]) {
      for (let shift = 0; shift < 3; shift++) {
        const bytes = crypto.randomBytes(size + shift);
        const value = encodeURIComponent(bytes.toString('base64'));
        const decoded = decode(value);
        expect(decoded?.equals(bytes)).toBe(true);
        expect(inBody(value).general().equals(bytes)).toBe(true);
      }
    }
    // 0xFF bytes are "////" in base64: an escape at every third byte, so every window end splits one
    // (or falls between two), whatever the offset.
    for (const size of [40_000, 40_001, 40_002, 40_003]) {
      const bytes = Buffer.alloc(size, 0xff);
      expect(decode(encodeURIComponent(bytes.toString('base64')))?.equals(bytes)).toBe(true);
    }
  });

  test('takes a data: prefix (percent-encoded or not), missing padding and the URL-safe alphabet', () => {
    const bytes = crypto.randomBytes(100_001);
    const base64 = bytes.toString('base64');
    expect(decode(encodeURIComponent(bytes.toString('base64url')))?.equals(bytes)).toBe(true);
    expect(decode(encodeURIComponent(`data:image/jpeg;base64,${base64}`))?.equals(bytes)).toBe(true);
    expect(decode(`data:image/jpeg;base64,${encodeURIComponent(base64)}`)?.equals(bytes)).toBe(true);
    expect(decode(encodeURIComponent(base64.replace(/=+$/, '')))?.equals(bytes)).toBe(true);
  });

  test('leaves every other form to the general path (null), which decides as before', () => {
    const base64 = crypto.randomBytes(100_000).toString('base64');
    const others = {
      'plus for space': encodeURIComponent(base64).replace('%2F', '+'),
      'line breaks': encodeURIComponent(base64.replace(/(.{76})/g, '$1\n')),
      'malformed escape': `${encodeURIComponent(base64)}%zz`,
      'padding inside': encodeURIComponent(`${base64.slice(0, 1000)}==${base64.slice(1000)}`),
      'a stray character': encodeURIComponent(`${base64.slice(0, 60_000)}$${base64.slice(60_000)}`),
      'not base64 after data:': encodeURIComponent('data:image/png;base64,') + '%E2%82%AC'.repeat(20_000),
      'an impossible length': encodeURIComponent(`${base64}A`),
      'a bad data: prefix': encodeURIComponent(`data:nonsense,${base64}`),
    };
    for (const [label, value] of Object.entries(others)) expect([label, decode(value)]).toEqual([label, null]);
  });

  test('more than maxBytes gives null (the general path then refuses it with 413)', () => {
    const bytes = crypto.randomBytes(60_000);
    const value = encodeURIComponent(bytes.toString('base64'));
    expect(decode(value, 59_999)).toBeNull();
    expect(decode(value, 60_000)?.equals(bytes)).toBe(true);
  });

  test('writes into one borrowed buffer, sized from the encoded length', () => {
    borrowed.length = 0;
    const bytes = crypto.randomBytes(200_000);
    const value = encodeURIComponent(bytes.toString('base64'));
    expect(decode(value)?.equals(bytes)).toBe(true);
    expect(borrowed).toHaveLength(1);
    expect(borrowed[0]).toBeGreaterThanOrEqual(bytes.length);
    expect(borrowed[0]).toBeLessThanOrEqual(Math.floor((value.length * 3) / 4) + 3);
  });
});
