/** The admin's ready-made transformation URLs (shared/contracts/serving.ts). */
import { presetWidth, srcsetSnippet, type ServingAnswer } from '../../shared/contracts/serving';

const serving: ServingAnswer = {
  transformBase: 'https://img.example/img',
  presets: ['rs:fit:245:156', 'w:500', 'w:750', 'w:1000', 'w:1920', 'q:50'].map((definition, i) => ({ name: `p${i}`, definition, width: presetWidth(definition) })),
};

test('a preset\'s width comes from w, width, rs or s; none from other options', () => {
  expect(['w:500', 'width:640', 'rs:fill:300:200', 's:400:300', 'q:50', 'rs::0:10', 'pr:x'].map(presetWidth)).toEqual([500, 640, 300, 400, null, null, null]);
});

test('the srcset lists the presets narrower than the image, then the image itself; the src is a middle one', () => {
  const snippet = srcsetSnippet(serving, { url: 'https://img.example/uploads/a.jpg', width: 1200, alt: 'A "cat" & <dog>' })!;
  expect(snippet).toBe(
    '<img src="https://img.example/img/_/pr:p2/plain/https://img.example/uploads/a.jpg"\n' +
      '     srcset="https://img.example/img/_/pr:p0/plain/https://img.example/uploads/a.jpg 245w,\n' +
      '             https://img.example/img/_/pr:p1/plain/https://img.example/uploads/a.jpg 500w,\n' +
      '             https://img.example/img/_/pr:p2/plain/https://img.example/uploads/a.jpg 750w,\n' +
      '             https://img.example/img/_/pr:p3/plain/https://img.example/uploads/a.jpg 1000w,\n' +
      '             https://img.example/uploads/a.jpg 1200w"\n' +
      '     sizes="100vw" alt="A &quot;cat&quot; &amp; &lt;dog>">'
  );
  expect(srcsetSnippet({ ...serving, transformBase: null }, { url: 'u', width: 10, alt: '' })).toBeNull();
  expect(srcsetSnippet(serving, { url: 'https://h/a.jpg', width: 100, alt: '' })).toBe('<img src="https://h/a.jpg"\n     srcset="https://h/a.jpg 100w"\n     sizes="100vw" alt="">');
});
