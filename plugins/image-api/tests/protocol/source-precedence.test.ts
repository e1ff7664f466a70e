import { pickSource, type BodyPart } from '../../server/src/protocol/source-precedence';

const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
const part = (name: string, arrived: BodyPart['arrived'], content: Buffer | string = bytes, filename: string | null = 'x.png'): BodyPart => ({
  name,
  bytes: Buffer.isBuffer(content) ? content : Buffer.from(content),
  filename: arrived === 'file' ? filename : null,
  arrived,
});

/** The source alone (most tests); the field it came in is tested apart. */
const sourceOf = (...args: Parameters<typeof pickSource>) => pickSource(...args)?.source ?? null;

describe('file part `source`, then file part `image`, then text `source`, then text `image`', () => {
  test('a file part wins over text', () => {
    expect(sourceOf({ source: 'http://a/b.png', image: 'aGk=' }, [part('source', 'file')])).toEqual({ kind: 'file', bytes, filename: 'x.png' });
  });
  test('an `image` file part counts too, after a `source` one whatever the order', () => {
    const other = Buffer.from('other');
    expect(sourceOf({}, [part('image', 'file', other), part('source', 'file')])).toEqual({ kind: 'file', bytes, filename: 'x.png' });
    expect(sourceOf({}, [part('image', 'file')])).toEqual({ kind: 'file', bytes, filename: 'x.png' });
  });
  test('of two file parts of one name, the first', () => {
    expect(sourceOf({}, [part('source', 'file', bytes, 'a.png'), part('source', 'file', Buffer.from('b'), 'b.png')])).toMatchObject({ filename: 'a.png' });
  });
  test('text source before text image', () => {
    expect(sourceOf({ source: 'aGk=', image: 'http://a/b.png' }, [])).toEqual({ kind: 'base64', text: 'aGk=' });
  });
  test('text image when source is missing or blank', () => {
    expect(sourceOf({ source: '  ', image: 'https://a/b.png' }, [])).toEqual({ kind: 'url', url: 'https://a/b.png' });
  });
  test.each([
    ['http://x/y.png', 'url'], ['HTTPS://x/y.png', 'url'], ['  https://x/y.png\n', 'url'],
    ['ftp://x/y.png', 'url'], ['file:///etc/passwd', 'url'], ['data:image/png;base64,aGk=', 'base64'], ['//x/y.png', 'base64'],
  ])('%s is a %s source', (text, kind) => {
    expect(sourceOf({ source: text }, [])?.kind).toBe(kind);
  });
  test('repeated fields: the first value', () => {
    expect(sourceOf({ source: ['aGk=', 'http://a/b.png'] }, [])).toEqual({ kind: 'base64', text: 'aGk=' });
  });
  test('nothing: null', () => {
    expect(pickSource({ other: 'x' }, [])).toBeNull();
    expect(sourceOf({ source: { nested: 'x' } }, [])).toBeNull();
  });
});

describe('parts that are text', () => {
  test('base64 decoded by the body parser is text: a text `source` comes first, a file part first of all', () => {
    const decoded = part('image', 'decoded');
    expect(sourceOf({}, [decoded])).toEqual({ kind: 'decoded', bytes });
    expect(sourceOf({ source: 'aGk=' }, [decoded])).toEqual({ kind: 'base64', text: 'aGk=' });
    expect(sourceOf({ image: 'aGk=' }, [part('source', 'decoded')])).toEqual({ kind: 'decoded', bytes });
    expect(sourceOf({}, [part('source', 'decoded'), part('image', 'file')])).toEqual({ kind: 'file', bytes, filename: 'x.png' });
  });
  test('an untyped part holding a URL or base64 is text, after the text fields of its name', () => {
    expect(sourceOf({}, [part('source', 'untyped', ' https://a/b.png')])).toEqual({ kind: 'url', url: 'https://a/b.png' });
    expect(sourceOf({}, [part('source', 'untyped', 'aGk=\n')])).toEqual({ kind: 'base64', text: 'aGk=\n' });
    expect(sourceOf({ source: 'http://a/first.png' }, [part('source', 'untyped', 'aGk=')])).toEqual({ kind: 'url', url: 'http://a/first.png' });
  });
  test('an untyped part holding anything else is the image itself', () => {
    expect(sourceOf({ source: 'aGk=' }, [part('source', 'untyped')])).toEqual({ kind: 'file', bytes, filename: null });
  });
});

describe('the field the image came in (`image`: the imgbb dialect)', () => {
  test('source, whichever way it came', () => {
    expect(pickSource({ source: 'aGk=', image: 'aGk=' }, [])?.field).toBe('source');
    expect(pickSource({}, [part('source', 'file'), part('image', 'file')])?.field).toBe('source');
    expect(pickSource({}, [part('source', 'decoded')])?.field).toBe('source');
  });
  test('image, when it decided', () => {
    expect(pickSource({ image: 'https://a/b.png' }, [])?.field).toBe('image');
    expect(pickSource({ source: ' ', image: 'aGk=' }, [])?.field).toBe('image');
    expect(pickSource({ source: 'aGk=' }, [part('image', 'file')])?.field).toBe('image');
    expect(pickSource({}, [part('image', 'decoded')])?.field).toBe('image');
    expect(pickSource({}, [part('image', 'untyped', 'https://a/b.png')])?.field).toBe('image');
  });
});
