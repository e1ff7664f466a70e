import sharp from 'sharp';
import { restrictDecoders } from '../../server/src/images/decoders/image-decoders';
import { svg, tiff } from '../../../../tests/helpers/fixtures';

afterAll(() => restrictDecoders(false));

test('blocked loaders refuse their formats; the ones the API needs still work; unblocking restores', async () => {
  const others = [svg, await tiff()];
  restrictDecoders(true);
  for (const bytes of others) await expect(sharp(bytes).metadata()).rejects.toThrow(/blocked|unsupported/i);
  for (const format of ['jpeg', 'png', 'webp', 'gif', 'avif'] as const) {
    const bytes = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123' } })[format]().toBuffer();
    expect((await sharp(bytes).metadata()).format).toBe(format === 'avif' ? 'heif' : format);
  }
  restrictDecoders(false);
  expect((await sharp(svg).metadata()).format).toBe('svg');
});
