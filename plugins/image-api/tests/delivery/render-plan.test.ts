/** The geometry of a transformation (shared/render-plan.ts; delivery renders with it), with imgproxy's meanings. */
import { planRender } from '../../shared/render-plan';
import type { TransformSpec } from '../../server/src/delivery/transform-options';

const spec = (over: Partial<TransformSpec>): TransformSpec => ({
  resizingType: 'fit', width: 0, height: 0, dpr: 1, enlarge: false, gravity: null, quality: 0, format: null, ...over,
});
const SOURCE = { width: 1200, height: 800 };
const size = (plan: ReturnType<typeof planRender>) => [plan.width, plan.height];

test('fit keeps the aspect within the box; one side alone scales the other', () => {
  expect(size(planRender(SOURCE, spec({ width: 300, height: 300 }), null))).toEqual([300, 200]);
  expect(size(planRender(SOURCE, spec({ height: 100 }), null))).toEqual([150, 100]);
  expect(size(planRender(SOURCE, spec({}), null))).toEqual([1200, 800]);
});

test('never enlarged unless asked; dpr multiplies', () => {
  expect(size(planRender(SOURCE, spec({ width: 2400 }), null))).toEqual([1200, 800]);
  expect(size(planRender(SOURCE, spec({ width: 2400, enlarge: true }), null))).toEqual([2400, 1600]);
  expect(size(planRender(SOURCE, spec({ width: 300, dpr: 2 }), null))).toEqual([600, 400]);
});

test('fill covers the box and crops around the gravity, the focal point, else the centre', () => {
  const centre = planRender(SOURCE, spec({ resizingType: 'fill', width: 200, height: 200 }), null);
  expect(centre).toMatchObject({ scaledWidth: 300, scaledHeight: 200, width: 200, height: 200, crop: { left: 50, top: 0, width: 200, height: 200 } });
  expect(planRender(SOURCE, spec({ resizingType: 'fill', width: 200, height: 200 }), { x: 0.9, y: 0.5 }).crop).toMatchObject({ left: 100 });
  expect(planRender(SOURCE, spec({ resizingType: 'fill', width: 200, height: 200 }), { x: 0.1, y: 0.5 }).crop).toMatchObject({ left: 0 });
  const west = spec({ resizingType: 'fill', width: 200, height: 200, gravity: { type: 'compass', anchor: 'we', xOffset: 0, yOffset: 0 } });
  expect(planRender(SOURCE, west, { x: 0.9, y: 0.5 }).crop).toMatchObject({ left: 0 });
  const east = spec({ resizingType: 'fill', width: 200, height: 200, gravity: { type: 'compass', anchor: 'ea', xOffset: 10, yOffset: 0 } });
  expect(planRender(SOURCE, east, null).crop).toMatchObject({ left: 90 });
  const fp = spec({ resizingType: 'fill', width: 200, height: 200, gravity: { type: 'focal', x: 0.5, y: 0.5 } });
  expect(planRender(SOURCE, fp, { x: 0.9, y: 0.9 }).crop).toMatchObject({ left: 50 });
  expect(planRender(SOURCE, spec({ resizingType: 'fill', width: 200, height: 200, gravity: { type: 'smart' } }), null).smart).toBe(true);
});

test('fill of a box larger than the source keeps what the source has of it; fill-down crops to the box aspect instead', () => {
  expect(size(planRender(SOURCE, spec({ resizingType: 'fill', width: 2000, height: 2000 }), null))).toEqual([1200, 800]);
  expect(size(planRender(SOURCE, spec({ resizingType: 'fill-down', width: 3000, height: 1000 }), null))).toEqual([1200, 400]);
  expect(size(planRender(SOURCE, spec({ resizingType: 'fill-down', width: 300, height: 100 }), null))).toEqual([300, 100]);
});

test('force ignores the aspect; auto fills a box of the same orientation and fits another', () => {
  expect(size(planRender(SOURCE, spec({ resizingType: 'force', width: 100, height: 300 }), null))).toEqual([100, 300]);
  expect(size(planRender(SOURCE, spec({ resizingType: 'auto', width: 300, height: 100 }), null))).toEqual([300, 100]);
  expect(size(planRender(SOURCE, spec({ resizingType: 'auto', width: 100, height: 300 }), null))).toEqual([100, 67]);
});
