/**
 * The Cloudflare purger against a loopback stand-in of Cloudflare's "Purge Cached Content" API
 * (https://developers.cloudflare.com/api/resources/cache/methods/purge/): the stand-in checks the
 * method, path, token, content type and body as documented and answers as Cloudflare does.
 */
import { createCloudflarePurger } from '../../server/src/purge/cloudflare-purger';
import { startStandIn, timed, type SeenRequest, type StandIn, type StandInAnswer } from './stand-in';

const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';
const TOKEN = 'cf-token-Y2xvdWRmbGFyZS1zZWNyZXQ';

/** Cloudflare's envelope: every answer, success or not, carries these four fields. */
const envelope = (success: boolean, errors: Array<{ code: number; message: string }> = [], result: unknown = null) => ({ success, errors, messages: [], result });
const refused = (status: number, code: number, message: string): StandInAnswer => ({ status, json: envelope(false, [{ code, message }]) });

/** The API as documented: anything else is refused, so a purger that strays fails its test. */
function cloudflare(request: SeenRequest): StandInAnswer {
  if (request.method !== 'POST' || request.url !== `/client/v4/zones/${ZONE}/purge_cache`) return refused(404, 7003, 'Could not route to the requested path');
  if (request.headers.authorization !== `Bearer ${TOKEN}`) return refused(403, 10000, 'Authentication error');
  if (request.headers['content-type'] !== 'application/json') return refused(400, 6003, 'Invalid request headers');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(request.body);
  } catch {
    return refused(400, 1012, 'Request must contain one of "purge_everything", "files", "tags", "hosts" or "prefixes"');
  }
  const kinds = Object.keys(body);
  const items = body[kinds[0]];
  if (kinds.length !== 1 || !['tags', 'files'].includes(kinds[0]) || !Array.isArray(items) || !items.every((item) => typeof item === 'string')) {
    return refused(400, 1012, 'Request must contain one of "purge_everything", "files", "tags", "hosts" or "prefixes"');
  }
  // The API reference's "up to 30 tags" and "up to 30 URLs in one API call" (Free, Pro, Business).
  if (items.length === 0 || items.length > 30) return refused(400, 1002, `stand-in: ${items.length} ${kinds[0]} in one request`);
  return { status: 200, json: envelope(true, [], { id: ZONE }) };
}

let api: StandIn;
beforeEach(async () => {
  api = await startStandIn(cloudflare);
});
afterEach(() => api.close());

const purger = (timeoutMs = 15_000) => createCloudflarePurger({ zone: ZONE, token: TOKEN, api: `${api.url}/client/v4`, timeoutMs });
const bodies = () => api.requests.map((request) => JSON.parse(request.body) as { tags?: string[]; files?: string[] });

test('sends the tags as documented: POST /zones/{zone}/purge_cache, a Bearer token, JSON {"tags": [...]}', async () => {
  await purger().purge({ tags: ['img-abc', 'key-k1'], urls: [] });
  expect(api.requests).toHaveLength(1);
  const [request] = api.requests;
  expect(request.method).toBe('POST');
  expect(request.url).toBe(`/client/v4/zones/${ZONE}/purge_cache`);
  expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.body).toBe('{"tags":["img-abc","key-k1"]}');
});

test('70 tags go in requests of at most 30 (30, 30, 10), every tag once', async () => {
  const tags = Array.from({ length: 70 }, (_, i) => `img-${i}`);
  await purger().purge({ tags, urls: [] });
  expect(bodies().map((body) => body.tags?.length)).toEqual([30, 30, 10]);
  expect(bodies().flatMap((body) => body.tags)).toEqual(tags);
});

test('file URLs go as {"files": [...]}, in requests of their own beside the tags', async () => {
  const urls = ['https://cdn.example.com/uploads/abc.jpg', 'https://cdn.example.com/uploads/abc.md.jpg', 'https://cdn.example.com/uploads/abc.th.jpg'];
  await purger().purge({ tags: ['img-abc'], urls });
  expect(bodies()).toEqual([{ tags: ['img-abc'] }, { files: urls }]);
  const many = Array.from({ length: 31 }, (_, i) => `https://cdn.example.com/uploads/${i}.jpg`);
  await purger().purge({ tags: [], urls: many });
  expect(bodies().slice(2).map((body) => body.files)).toEqual([many.slice(0, 30), many.slice(30)]);
});

test('each tag and URL is sent once; a purge of nothing sends nothing', async () => {
  await purger().purge({ tags: ['img-a', 'img-a', 'img-b'], urls: ['https://cdn.example.com/a.jpg', 'https://cdn.example.com/a.jpg'] });
  expect(bodies()).toEqual([{ tags: ['img-a', 'img-b'] }, { files: ['https://cdn.example.com/a.jpg'] }]);
  await purger().purge({ tags: [], urls: [] });
  expect(api.requests).toHaveLength(2);
});

test("a refusal rejects with Cloudflare's status and words, never the token", async () => {
  const wrong = createCloudflarePurger({ zone: ZONE, token: 'not-the-token-b3RoZXI', api: `${api.url}/client/v4`, timeoutMs: 15_000 });
  const { error } = await timed(() => wrong.purge({ tags: ['img-abc'], urls: [] }));
  expect(error?.message).toBe('image-api: cloudflare purge of tags 1-1 of 1 failed: Cloudflare answered 403 (10000 Authentication error)');
  expect(error?.message).not.toContain('not-the-token-b3RoZXI');
});

test('an answer that quotes the token still leaves it out of the message', async () => {
  api.respond = () => refused(400, 6111, `Invalid format for Authorization header: Bearer ${TOKEN}`);
  const { error } = await timed(() => purger().purge({ tags: ['img-abc'], urls: [] }));
  expect(error?.message).toContain('Cloudflare answered 400 (6111 Invalid format for Authorization header: Bearer [token])');
  expect(error?.message).not.toContain(TOKEN);
});

test('a 200 whose body says success: false rejects', async () => {
  api.respond = () => ({ status: 200, json: envelope(false, [{ code: 1134, message: 'Purge request could not be processed' }]) });
  await expect(purger().purge({ tags: ['img-abc'], urls: [] })).rejects.toThrow('image-api: cloudflare purge of tags 1-1 of 1 failed: Cloudflare answered 200 without success (1134 Purge request could not be processed)');
});

test('a Cloudflare that never answers: rejects after about the timeout', async () => {
  api.respond = () => 'never';
  const { ms, error } = await timed(() => purger(200).purge({ tags: ['img-abc'], urls: [] }));
  expect(error?.message).toBe('image-api: cloudflare purge of tags 1-1 of 1 failed: no answer within 200 ms');
  expect(ms).toBeGreaterThanOrEqual(190);
  expect(ms).toBeLessThan(10_000);
});

test('a Cloudflare that fails three times, then succeeds: three rejections, then the purge resolves', async () => {
  let calls = 0;
  api.respond = (request) => (++calls <= 3 ? refused(429, 10429, 'Rate limited. Please wait and consider throttling your request speed') : cloudflare(request));
  const instance = purger();
  const outcomes: string[] = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    outcomes.push(await instance.purge({ tags: ['img-abc'], urls: [] }).then(() => 'resolved', (error: Error) => error.message));
  }
  expect(outcomes).toEqual([
    ...Array(3).fill('image-api: cloudflare purge of tags 1-1 of 1 failed: Cloudflare answered 429 (10429 Rate limited. Please wait and consider throttling your request speed)'),
    'resolved',
  ]);
  expect(api.requests.map((request) => request.body)).toEqual(Array(4).fill('{"tags":["img-abc"]}'));
});

test('an API nobody listens on rejects with the network error', async () => {
  await api.close();
  await expect(purger().purge({ tags: ['img-abc'], urls: [] })).rejects.toThrow('image-api: cloudflare purge of tags 1-1 of 1 failed: the request failed (ECONNREFUSED)');
});
