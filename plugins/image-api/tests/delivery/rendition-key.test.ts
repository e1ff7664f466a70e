/**
 * The kept results' key (delivery/renditions.ts): an animated result has a key of its own
 * (a still of its first frame was kept under the same options before), and every other result keeps
 * the key it had, so nothing kept is rendered again for nothing.
 */
import crypto from 'crypto';
import { renditionKey, type RenditionRequest } from '../../server/src/delivery/renditions';

const file = { hash: 'moving-Ab12', ext: '.gif', mime: 'image/gif', width: 300, height: 200, url: '/uploads/moving-Ab12.gif' };
const request: Omit<RenditionRequest, 'replan'> = {
  source: { image: { name: 'moving-Ab12', tags: ['img-Ab12', 'image-api'], expiresAt: null,
    held: false, createdAt: new Date(0), original: file, variants: {}, focalPoint: null }, file },
  plan: { scaledWidth: 150, scaledHeight: 100, crop: null, smart: false, width: 150, height: 100 },
  format: 'webp',
  quality: 0,
  frames: 1,
};

test('a still result keeps the key it had; an animated one has its own', () => {
  const before = crypto
    .createHash('sha256')
    .update(JSON.stringify({ v: 1, file: 'moving-Ab12.gif', plan: request.plan, format: 'webp', quality: 0 }))
    .digest('hex');
  expect(renditionKey(request)).toBe(before);
  const animated = renditionKey({ ...request, frames: 8 });
  expect(animated).toMatch(/^[0-9a-f]{64}$/);
  expect(animated).not.toBe(before);
  // The frames' count is not in it: the source file names them.
  expect(renditionKey({ ...request, frames: 9 })).toBe(animated);
});
