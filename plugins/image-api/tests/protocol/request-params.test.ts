import type { Context } from 'koa';
import {
  answerFormat,
  checkAlbumsParams,
  checkDeleteParams,
  checkUploadParams,
  gatherParams,
  type SentParams,
} from '../../server/src/protocol/request-params';
import { refusal } from '../refusal';

const ctx = (query: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ({ query, get: (name: string) => headers[name.toLowerCase()] ?? '' }) as unknown as Context;
const none = { fields: {}, parts: [] };
const limits = { minExpiration: 60, maxExpiration: 15_552_000 };

describe('gathering', () => {
  test('a body value wins over a query value of the same name', () => {
    expect(gatherParams(ctx({ format: 'txt', title: 'query' }), { fields: { title: 'body' }, parts: [] })).toMatchObject({ format: 'txt', title: 'body' });
  });

  test('the X-API-Key header wins over the key parameter', () => {
    expect(gatherParams(ctx({ key: 'img_query' }, { 'x-api-key': 'img_header' }), none).key).toBe('img_header');
    expect(gatherParams(ctx({ key: 'img_query' }), none).key).toBe('img_query');
  });

  test('the first value of a repeated field; the source from query, fields and parts together; names as sent', () => {
    expect(gatherParams(ctx({ source: 'http://a/b.png', nsfw: ['1', '0'], album_id: '4' }), { fields: { action: 'upload', id: 'Ab12' }, parts: [] })).toEqual({
      key: null, action: 'upload', format: null, source: { kind: 'url', url: 'http://a/b.png' }, sourceField: 'source', title: null, description: null, nsfw: '1',
      width: null, albumId: '4', expiration: null, id: 'Ab12',
    });
  });

  test('`name` is the title\'s alias; `title` wins', () => {
    expect(gatherParams(ctx({ name: 'from name' }), none).title).toBe('from name');
    expect(gatherParams(ctx({ name: 'from name', title: 'from title' }), none).title).toBe('from title');
  });

  test('a JSON body\'s numbers and booleans are read as text', () => {
    expect(gatherParams(ctx({}), { fields: { width: 300, nsfw: true, album_id: 7 }, parts: [] })).toMatchObject({ width: '300', nsfw: 'true', albumId: '7' });
  });
});

const sent = (overrides: Partial<SentParams>): SentParams => ({
  key: null, action: null, format: null, source: null, sourceField: null, title: null, description: null, nsfw: null, width: null, albumId: null, expiration: null, id: null,
  ...overrides,
});

describe('an upload', () => {
  test('defaults: JSON, no flag, nothing else', () => {
    expect(checkUploadParams(sent({}), limits)).toEqual({
      key: null, action: null, format: 'json', source: null, title: null, description: null, nsfw: false, width: null, albumId: null, expiration: null,
    });
  });

  test.each([['1', true], ['true', true], ['0', false], ['yes', false], [null, false]])('nsfw %j is %s', (nsfw, flag) => {
    expect(checkUploadParams(sent({ nsfw }), limits).nsfw).toBe(flag);
  });

  test.each(['json', 'txt', 'redirect'])('format %s', (format) => {
    expect(checkUploadParams(sent({ format }), limits).format).toBe(format);
  });

  test('an action other than upload: 400/120; a format not in the list: 400/140; the action is checked first', async () => {
    expect(await refusal(() => checkUploadParams(sent({ action: 'delete' }), limits))).toEqual({ status: 400, code: 120, message: 'Invalid API action' });
    expect(await refusal(() => checkUploadParams(sent({ format: 'xml' }), limits))).toEqual({ status: 400, code: 140, message: 'Invalid format: use one of json, txt, redirect' });
    expect(await refusal(() => checkUploadParams(sent({ action: 'x', format: 'xml' }), limits))).toMatchObject({ code: 120 });
  });

  test('width and album_id: positive integers; empty is none', () => {
    expect(checkUploadParams(sent({ width: '640', albumId: ' 12 ' }), limits)).toMatchObject({ width: 640, albumId: 12 });
    expect(checkUploadParams(sent({ width: '', albumId: '' }), limits)).toMatchObject({ width: null, albumId: null });
  });

  test.each(['0', '-5', '1.5', 'abc', '12px', '1e3', '99999999999999999999'])('width %j: 400/170', async (width) => {
    expect(await refusal(() => checkUploadParams(sent({ width }), limits))).toEqual({ status: 400, code: 170, message: 'Invalid width: width is the number of pixels to resize the stored image to (a whole number from 1; its height follows)' });
  });

  test.each(['0', '-1', 'photos', '3.0'])('album_id %j: 400/160', async (albumId) => {
    expect(await refusal(() => checkUploadParams(sent({ albumId }), limits))).toEqual({ status: 400, code: 160, message: 'Invalid album: album_id must be the id of a folder that GET /api/1/albums lists for this key' });
  });

  test('expiration: seconds within the limits; empty is none', async () => {
    expect(checkUploadParams(sent({ expiration: '600' }), limits).expiration).toBe(600);
    expect(checkUploadParams(sent({ expiration: 'PT10M' }), limits).expiration).toBe(600);
    expect(checkUploadParams(sent({ expiration: ' ' }), limits).expiration).toBeNull();
    expect(await refusal(() => checkUploadParams(sent({ expiration: '59' }), limits))).toMatchObject({ status: 400, code: 150 });
  });

  test('a title keeps 100 characters (whole characters)', () => {
    const long = '🌅'.repeat(150);
    const title = checkUploadParams(sent({ title: long }), limits).title!;
    expect(Array.from(title)).toHaveLength(100);
    expect(title).toBe('🌅'.repeat(100));
    expect(checkUploadParams(sent({ title: 'short' }), limits).title).toBe('short');
  });
});

describe('a delete', () => {
  test('needs an id', async () => {
    expect(checkDeleteParams(sent({ id: ' Ab12Cd ', format: 'txt' }))).toEqual({ key: null, action: null, format: 'txt', id: 'Ab12Cd' });
    for (const id of [null, '', '  ']) {
      expect(await refusal(() => checkDeleteParams(sent({ id })))).toEqual({ status: 400, code: 130, message: 'No image id provided' });
    }
  });
  test('its action, if given, is delete', async () => {
    expect(await refusal(() => checkDeleteParams(sent({ id: 'x', action: 'upload' })))).toMatchObject({ code: 120 });
  });
});

describe('an album listing', () => {
  test('reads only the common parameters', () => {
    expect(checkAlbumsParams(sent({ key: 'img_x', width: 'abc' }))).toEqual({ key: 'img_x', action: null, format: 'json' });
  });
});

test('the format errors answer in: the one asked when valid, else JSON', () => {
  expect(answerFormat('txt')).toBe('txt');
  expect(answerFormat('xml')).toBe('json');
  expect(answerFormat(undefined)).toBe('json');
  expect(answerFormat(['txt'])).toBe('json');
});
