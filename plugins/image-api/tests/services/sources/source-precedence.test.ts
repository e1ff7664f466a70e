import { pickSource } from '../../../server/src/services/contract/request-params';

const file = { bytes: Buffer.from('abc'), originalFilename: 'x.png', size: 3 };

describe('pickSource: file part, then text source, then text image', () => {
  test('the file part wins over text', () => {
    expect(pickSource({ source: 'http://a/b.png', image: 'aGk=' }, { source: file })).toEqual({ kind: 'file', file });
  });
  test('an `image` file part counts too', () => {
    expect(pickSource({}, { image: file })).toEqual({ kind: 'file', file });
  });
  test('text source before text image', () => {
    expect(pickSource({ source: 'aGk=', image: 'http://a/b.png' }, {})).toEqual({ kind: 'base64', data: 'aGk=' });
  });
  test('text image when source is missing or blank', () => {
    expect(pickSource({ source: '  ', image: 'https://a/b.png' }, {})).toEqual({ kind: 'url', url: 'https://a/b.png' });
  });
  test.each([
    ['http://x/y.png', 'url'], ['HTTPS://x/y.png', 'url'], ['  https://x/y.png\n', 'url'],
    ['ftp://x/y.png', 'base64'], ['data:image/png;base64,aGk=', 'base64'], ['//x/y.png', 'base64'],
  ])('%s is a %s source', (text, kind) => {
    expect(pickSource({ source: text }, {})?.kind).toBe(kind);
  });
  test('repeated fields: the first value', () => {
    expect(pickSource({ source: ['aGk=', 'http://a/b.png'] }, {})).toEqual({ kind: 'base64', data: 'aGk=' });
  });
  test('nothing: null', () => {
    expect(pickSource({ other: 'x' }, {})).toBeNull();
    expect(pickSource({ source: { nested: 'x' } }, {})).toBeNull();
  });
});
