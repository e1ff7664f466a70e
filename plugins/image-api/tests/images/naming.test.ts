import { cleanOriginalFilename, isKeptResultFile, keptResultName, libraryName, randomId, storedName } from '../../server/src/images/naming';

test('randomId: length, alphabet, no repeats over many draws, every character used', () => {
  const ids = Array.from({ length: 5000 }, () => randomId(10));
  for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{10}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids.join('')).size).toBe(62);
  // No character favoured (a modulo bias would give the first ones about 3 % more): 50,000 draws,
  // about 806 each.
  const counts = new Map<string, number>();
  for (const char of ids.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
  expect(Math.min(...counts.values())).toBeGreaterThan(650);
  expect(Math.max(...counts.values())).toBeLessThan(970);
  expect(randomId()).toMatch(/^[A-Za-z0-9]{8}$/);
  expect(randomId(32)).toMatch(/^[A-Za-z0-9]{32}$/);
});

describe('storedName', () => {
  test.each([
    ['My Cat.png', 'my-cat-ID'],
    ['café 写真.jpg', 'cafe-ID'],
    ['../../etc/passwd', 'passwd-ID'],
    ['C:\\Users\\bob\\Pictures\\Cat Pic.JPG', 'cat-pic-ID'],
    ['screenshot', 'screenshot-ID'],
    ['.png', 'ID'],
    ['写真.png', 'ID'],
    [null, 'ID'],
    ['x'.repeat(4000) + '.png', `${'x'.repeat(60)}-ID`],
    ['a\u0000b\u0007c.png', 'a-b-c-ID'],
  ])('%s → %s', (original, expected) => {
    expect(storedName(original, 'ID')).toBe(expected);
  });
  test('names are always URL- and file-system-safe', () => {
    for (const name of ['a/b\\c:d*e?f"g<h>i|j.png', '%00%2e%2e.png', 'CON.png', ' spaced  out .gif']) {
      expect(storedName(name, 'ID')).toMatch(/^[a-z0-9-]*ID$/);
    }
  });
});

test('cleanOriginalFilename drops control characters and bounds the length', () => {
  expect(cleanOriginalFilename(' a\u0000b\nc.png ')).toBe('abc.png');
  expect(cleanOriginalFilename('y'.repeat(400)).length).toBe(255);
});

test('cleanOriginalFilename drops bidirectional controls (a right-to-left override shows cat\u202Egpj.exe as catexe.jpg)', () => {
  expect(cleanOriginalFilename('cat\u202Egpj.exe')).toBe('catgpj.exe');
  expect(cleanOriginalFilename('\u2066a\u2067b\u2068c\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d.png')).toBe('abc.png');
  // Right-to-left text itself stays.
  expect(cleanOriginalFilename('صورة.png')).toBe('صورة.png');
});

describe('libraryName', () => {
  test.each([
    [null, 'scan.bmp', 'png', 'scan.png'],
    [null, 'IMG_0001.HEIC', 'jpg', 'IMG_0001.jpg'],
    [null, 'photo.jpeg', 'jpg', 'photo.jpeg'],
    [null, 'cat.png', 'png', 'cat.png'],
    [null, 'no-extension', 'webp', 'no-extension.webp'],
    ['Holiday', 'a.png', 'png', 'Holiday.png'],
    ['Release v1.2', 'a.bmp', 'png', 'Release v1.2.png'],
    ['cat.PNG', 'a.png', 'png', 'cat.PNG'],
    ['  ', 'scan.bmp', 'png', 'scan.png'],
  ])('title %p, file %p, stored as %p: %p', (title, original, extension, expected) => {
    expect(libraryName(title, original, extension)).toBe(expected);
  });
  test('a 255-character client name without an image extension keeps its extension within 255', () => {
    const long = 'x'.repeat(255);
    expect(libraryName(null, long, 'png')).toBe(`${'x'.repeat(251)}.png`);
    expect(libraryName(null, `${'y'.repeat(251)}.bmp`, 'png')).toBe(`${'y'.repeat(251)}.png`);
  });
});

test("a kept transformation result's name is told from an image's and a Media Library file's", () => {
  const key = 'a'.repeat(40) + '0123456789abcdef0123456789';
  const kept = keptResultName('cat-Ab12Cd34Ef', key);
  expect(kept).toBe(`cat-Ab12Cd34Ef_t${key.slice(0, 24)}`);
  expect(isKeptResultFile(`${kept}.webp`)).toBe(true);
  // An image's files, Strapi's hashes (`<slug>_<10 hex>`, a format's prefix), the name in upper case.
  for (const name of ['cat-Ab12Cd34Ef.jpg', 'cat-Ab12Cd34Ef.th.jpg', 'report_t0a1b2c3d4e.html', 'thumbnail_report_0a1b2c3d4e.png', `${kept.toUpperCase()}.webp`, kept]) {
    expect([name, isKeptResultFile(name)]).toEqual([name, false]);
  }
});
