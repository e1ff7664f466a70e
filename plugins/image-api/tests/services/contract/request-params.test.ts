import type { Context } from 'koa';
import { readParams } from '../../../server/src/services/contract/request-params';

const ctx = (query: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ({ query, get: (name: string) => headers[name.toLowerCase()] ?? '' }) as unknown as Context;

test('a body value wins over a query value of the same name', () => {
  const params = readParams(ctx({ format: 'txt', title: 'query' }), { fields: { title: 'body' }, parts: [] });
  expect(params).toMatchObject({ format: 'txt', title: 'body' });
});

test('the X-API-Key header wins over the key parameter', () => {
  expect(readParams(ctx({ key: 'img_query' }, { 'x-api-key': 'img_header' }), { fields: {}, parts: [] }).key).toBe('img_header');
  expect(readParams(ctx({ key: 'img_query' }), { fields: {}, parts: [] }).key).toBe('img_query');
});

test('the source is picked from query, fields and parts together; nsfw is 1 or true', () => {
  const params = readParams(ctx({ source: 'http://a/b.png', nsfw: 'true' }), { fields: { action: 'upload' }, parts: [] });
  expect(params).toEqual({
    key: null, action: 'upload', format: null, source: { kind: 'url', url: 'http://a/b.png' }, title: null, description: null, nsfw: true,
  });
  expect(readParams(ctx({ nsfw: 'yes' }), { fields: {}, parts: [] }).nsfw).toBe(false);
});
