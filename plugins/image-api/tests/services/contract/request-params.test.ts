import type { Context } from 'koa';
import { answerFormat, checkParams, gatherParams, type SentParams } from '../../../server/src/services/contract/request-params';
import { refusal } from '../../refusal';

const ctx = (query: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ({ query, get: (name: string) => headers[name.toLowerCase()] ?? '' }) as unknown as Context;
const none = { fields: {}, parts: [] };

describe('gathering', () => {
  test('a body value wins over a query value of the same name', () => {
    expect(gatherParams(ctx({ format: 'txt', title: 'query' }), { fields: { title: 'body' }, parts: [] })).toMatchObject({ format: 'txt', title: 'body' });
  });

  test('the X-API-Key header wins over the key parameter', () => {
    expect(gatherParams(ctx({ key: 'img_query' }, { 'x-api-key': 'img_header' }), none).key).toBe('img_header');
    expect(gatherParams(ctx({ key: 'img_query' }), none).key).toBe('img_query');
  });

  test('the first value of a repeated field; the source from query, fields and parts together', () => {
    expect(gatherParams(ctx({ source: 'http://a/b.png', nsfw: ['1', '0'] }), { fields: { action: 'upload' }, parts: [] })).toEqual({
      key: null, action: 'upload', format: null, source: { kind: 'url', url: 'http://a/b.png' }, title: null, description: null, nsfw: '1',
    });
  });
});

describe('checking', () => {
  const sent = (overrides: Partial<SentParams>): SentParams => ({
    key: null, action: null, format: null, source: null, title: null, description: null, nsfw: null, ...overrides,
  });

  test('defaults: JSON, no flag', () => {
    expect(checkParams(sent({}))).toEqual({ key: null, action: null, format: 'json', source: null, title: null, description: null, nsfw: false });
  });

  test.each([['1', true], ['true', true], ['0', false], ['yes', false], [null, false]])('nsfw %j is %s', (nsfw, flag) => {
    expect(checkParams(sent({ nsfw })).nsfw).toBe(flag);
  });

  test.each(['json', 'txt', 'redirect'])('format %s', (format) => {
    expect(checkParams(sent({ format })).format).toBe(format);
  });

  test('an action other than upload: 400/120; a format not in the list: 400/140; the action is checked first', async () => {
    expect(await refusal(() => checkParams(sent({ action: 'delete' })))).toEqual({ status: 400, code: 120, message: 'Invalid API action' });
    expect(await refusal(() => checkParams(sent({ format: 'xml' })))).toEqual({ status: 400, code: 140, message: 'Invalid format' });
    expect(await refusal(() => checkParams(sent({ action: 'x', format: 'xml' })))).toMatchObject({ code: 120 });
  });

  test('the format errors answer in: the one asked when valid, else JSON', () => {
    expect(answerFormat('txt')).toBe('txt');
    expect(answerFormat('xml')).toBe('json');
    expect(answerFormat(undefined)).toBe('json');
    expect(answerFormat(['txt'])).toBe('json');
  });
});
