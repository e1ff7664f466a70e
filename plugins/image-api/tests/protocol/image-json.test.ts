import { formatSize } from '../../shared/format-size';
import { formatDateTime, howLongAgo, imageJson, type StoredImage } from '../../server/src/protocol/image-json';

describe('formatSize: base 1000, at most one decimal', () => {
  test.each([
    [0, '0 B'], [512, '512 B'], [999, '999 B'], [1000, '1 KB'], [17_400, '17.4 KB'], [52_000, '52 KB'], [52_049, '52 KB'],
    [999_949, '999.9 KB'], [999_950, '1 MB'], [3_000_000, '3 MB'], [1_146_148, '1.1 MB'], [10_000_000, '10 MB'], [2_500_000_000, '2.5 GB'],
  ])('%d bytes → %s', (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});

describe('formatDateTime', () => {
  const instant = new Date('2026-01-05T23:04:05.678Z');
  test.each([
    ['UTC', '2026-01-05 23:04:05'],
    ['Europe/Paris', '2026-01-06 00:04:05'],
    ['America/Santiago', '2026-01-05 20:04:05'],
    ['Asia/Kolkata', '2026-01-06 04:34:05'],
  ])('%s', (zone, text) => {
    expect(formatDateTime(instant, zone)).toBe(text);
  });
  test('midnight is 00, not 24', () => {
    expect(formatDateTime(new Date('2026-03-01T00:00:00Z'), 'UTC')).toBe('2026-03-01 00:00:00');
  });
});

describe('howLongAgo', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  const ago = (seconds: number) => howLongAgo(new Date(now.getTime() - seconds * 1000), now);
  test.each([
    [0, 'moments ago'], [59, 'moments ago'], [60, '1 minute ago'], [150, '2 minutes ago'], [3600, '1 hour ago'],
    [86_400 * 2, '2 days ago'], [86_400 * 7, '1 week ago'], [86_400 * 45, '1 month ago'], [86_400 * 800, '2 years ago'],
  ])('%d s → %s', (seconds, text) => {
    expect(ago(seconds)).toBe(text);
  });
  test('a date in the future reads as moments ago', () => {
    expect(ago(-30)).toBe('moments ago');
  });
});

test('imageJson: the document order, string views and nsfw, view label', () => {
  const variant = { name: 'a-x.th', extension: 'png', mime: 'image/png', width: 160, height: 160, size: 1234, bits: 8, channels: 4, url: 'http://h/uploads/a-x.th.png' };
  const image: StoredImage = {
    ...variant, name: 'a-x', width: 300, height: 200, size: 52_000, url: 'http://h/uploads/a-x.png',
    idEncoded: 'x', md5: 'd41d8cd98f00b204e9800998ecf8427e', title: null, description: 'd', nsfw: true, views: 1,
    originalFilename: 'a.png', originalExif: null, createdAt: new Date('2026-01-01T00:00:00Z'), storage: 'local',
    viewerUrl: 'http://h/image/x', deleteUrl: 'http://h/image/x/delete/s', expiresAt: null, placeholder: '', dominantColor: '#000000', thumb: variant, medium: { ...variant, name: 'a-x.md', width: 300, height: 200, url: 'http://h/uploads/a-x.md.png' },
  };
  const json = imageJson(image, 'UTC', new Date('2026-01-01T00:00:30Z'));
  expect(json).toMatchObject({
    filename: 'a-x.png', ratio: 1.5, size_formatted: '52 KB', views: '1', views_label: 'view', nsfw: '1',
    date: '2026-01-01 00:00:00', date_gmt: '2026-01-01 00:00:00', display_url: 'http://h/uploads/a-x.md.png', how_long_ago: 'moments ago',
  });
  expect(json.thumb).toEqual({
    filename: 'a-x.th.png', name: 'a-x.th', width: 160, height: 160, ratio: 1, size: 1234, size_formatted: '1.2 KB',
    mime: 'image/png', extension: 'png', bits: 8, channels: 4, url: 'http://h/uploads/a-x.th.png',
  });
  expect(imageJson({ ...image, views: 2 }, 'UTC').views_label).toBe('views');
  expect(imageJson({ ...image, views: 0 }, 'UTC').views_label).toBe('views');
});
