/** The admin's ready-made transformation URLs (shared/contracts/serving.ts). */
import { presetWidth, renderedWidth, srcsetSnippet, type ServingAnswer, type ServingPreset } from '../../shared/contracts/serving';
import { presetOptions, readOptions } from '../../server/src/delivery/transform-options';

/** A preset as the server describes it (admin/usage-report.ts): its geometry read by delivery's own reader. */
const preset = (name: string, definition: string): ServingPreset => {
  const { resizingType, width, height, dpr, enlarge, gravity } = readOptions(presetOptions(definition), {}).spec;
  return { name, definition, width: presetWidth(definition), geometry: { resizingType, width, height, dpr, enlarge, gravity } };
};

const serving: ServingAnswer = {
  transformBase: 'https://img.example/img',
  presets: ['rs:fit:245:156', 'w:500', 'w:750', 'w:1000', 'w:1920', 'q:50'].map((definition, i) => preset(`p${i}`, definition)),
};

test('a preset\'s width comes from w, width, rs or s; none from other options', () => {
  expect(['w:500', 'width:640', 'rs:fill:300:200', 's:400:300', 'q:50', 'rs::0:10', 'pr:x'].map(presetWidth)).toEqual([500, 640, 300, 400, null, null, null]);
});

test('the srcset lists the presets narrower than the image, then the image itself; the src is a middle one', () => {
  const snippet = srcsetSnippet(serving, { url: 'https://img.example/uploads/a.jpg', width: 1200, height: 600, alt: 'A "cat" & <dog>' })!;
  expect(snippet).toBe(
    '<img src="https://img.example/img/_/pr:p2/plain/https://img.example/uploads/a.jpg"\n' +
      '     srcset="https://img.example/img/_/pr:p0/plain/https://img.example/uploads/a.jpg 245w,\n' +
      '             https://img.example/img/_/pr:p1/plain/https://img.example/uploads/a.jpg 500w,\n' +
      '             https://img.example/img/_/pr:p2/plain/https://img.example/uploads/a.jpg 750w,\n' +
      '             https://img.example/img/_/pr:p3/plain/https://img.example/uploads/a.jpg 1000w,\n' +
      '             https://img.example/uploads/a.jpg 1200w"\n' +
      '     sizes="100vw" alt="A &quot;cat&quot; &amp; &lt;dog>">'
  );
  expect(srcsetSnippet({ ...serving, transformBase: null }, { url: 'u', width: 10, height: 10, alt: '' })).toBeNull();
  expect(srcsetSnippet(serving, { url: 'https://h/a.jpg', width: 100, height: 75, alt: '' })).toBe('<img src="https://h/a.jpg"\n     srcset="https://h/a.jpg 100w"\n     sizes="100vw" alt="">');
});

test('each w descriptor is the width its URL renders: rs:fit:245:156 is 208 wide for a 4:3 image, not 245', () => {
  const snippet = srcsetSnippet(serving, { url: 'https://h/a.jpg', width: 1600, height: 1200, alt: '' })!;
  expect(snippet).toContain('https://img.example/img/_/pr:p0/plain/https://h/a.jpg 208w,');
  expect(snippet).not.toContain('245w');
  expect(renderedWidth(serving.presets[0], { width: 1600, height: 1200 })).toBe(208);
  // A portrait 3:4 photo: the height bounds it harder still.
  expect(renderedWidth(serving.presets[0], { width: 900, height: 1200 })).toBe(117);
  // Options that name no size render the image's own width; a fill crops to the box.
  expect(renderedWidth(serving.presets[5], { width: 1600, height: 1200 })).toBe(1600);
  expect(renderedWidth(preset('f', 'rs:fill:300:200'), { width: 1600, height: 1200 })).toBe(300);
  expect(renderedWidth(preset('h', 'h:300'), { width: 1600, height: 1200 })).toBe(400);
  expect(renderedWidth(preset('d', 'w:300/dpr:2'), { width: 1600, height: 1200 })).toBe(600);
  expect(renderedWidth({ ...serving.presets[0], geometry: null }, { width: 1600, height: 1200 })).toBeNull();
});

test('presets that render the same width appear once, the first of them; none wider than the image', () => {
  const twins: ServingAnswer = { transformBase: 'https://i/img', presets: [preset('a', 'w:400'), preset('b', 'rs:fit:400:400'), preset('c', 'w:2000/el:1')] };
  // 800×400: both render 400 wide; the enlarged one (2000) is wider than the image and left out.
  expect(srcsetSnippet(twins, { url: 'https://h/a.jpg', width: 800, height: 400, alt: '' })).toBe(
    '<img src="https://i/img/_/pr:a/plain/https://h/a.jpg"\n     srcset="https://i/img/_/pr:a/plain/https://h/a.jpg 400w,\n             https://h/a.jpg 800w"\n     sizes="100vw" alt="">'
  );
});
