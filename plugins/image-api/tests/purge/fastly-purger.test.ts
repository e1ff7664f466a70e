/**
 * The Fastly purger against a loopback stand-in of Fastly's purging API
 * (https://www.fastly.com/documentation/reference/api/purging/): "Purge multiple surrogate key tags"
 * and "Purge a URL", checked for method, path, `Fastly-Key`, content type and body as documented,
 * and answered as Fastly does.
 */
import { createFastlyPurger } from '../../server/src/purge/fastly-purger';
import { startStandIn, timed, type SeenRequest, type StandIn, type StandInAnswer } from './stand-in';

const SERVICE = 'SU1Z0isxPaozGVKXdv0eY';
const TOKEN = 'fastly-token-ZmFzdGx5LXNlY3JldA';

let purgeIds = 0;
const purgeId = () => `108-1391560174-${974124 + purgeIds++}`;

/** Fastly's errors: `{"msg": ..., "detail": ...}` with an error status. */
const refused = (status: number, msg: string, detail?: string): StandInAnswer => ({ status, json: detail ? { msg, detail } : { msg } });

/** The API as documented: anything else is refused, so a purger that strays fails its test. */
function fastly(request: SeenRequest): StandInAnswer {
  if (request.headers['fastly-key'] !== TOKEN) return refused(401, 'Provided credentials are missing or invalid');
  if (request.method !== 'POST') return refused(405, 'Method not allowed');
  if (request.url === `/service/${SERVICE}/purge`) {
    if (request.headers['content-type'] !== 'application/json') return refused(400, 'Bad request', 'Content-Type must be application/json');
    let keys: unknown;
    try {
      keys = (JSON.parse(request.body) as { surrogate_keys?: unknown }).surrogate_keys;
    } catch {
      return refused(400, 'Bad request', 'Invalid JSON');
    }
    if (!Array.isArray(keys) || keys.length === 0 || !keys.every((key) => typeof key === 'string')) return refused(400, 'Bad request', 'surrogate_keys must be a list of keys');
    // "Up to 256 surrogate keys can be purged in one batch request."
    if (keys.length > 256) return refused(400, 'Bad request', `stand-in: ${keys.length} keys in one request`);
    return { status: 200, json: Object.fromEntries(keys.map((key: string) => [key, purgeId()])) };
  }
  if (request.url.startsWith('/purge/') && request.body === '') return { status: 200, json: { status: 'ok', id: purgeId() } };
  return refused(404, 'Record not found');
}

let api: StandIn;
beforeEach(async () => {
  api = await startStandIn(fastly);
});
afterEach(() => api.close());

const purger = (timeoutMs = 15_000, token = TOKEN) => createFastlyPurger({ service: SERVICE, token, api: api.url, timeoutMs });
const keysSent = () => api.requests.filter((request) => request.url.endsWith('/purge')).map((request) => (JSON.parse(request.body) as { surrogate_keys: string[] }).surrogate_keys);

test('sends the keys as documented: POST /service/{id}/purge, Fastly-Key, JSON {"surrogate_keys": [...]}', async () => {
  await purger().purge({ tags: ['img-abc', 'key-k1'], urls: [] });
  expect(api.requests).toHaveLength(1);
  const [request] = api.requests;
  expect(request.method).toBe('POST');
  expect(request.url).toBe(`/service/${SERVICE}/purge`);
  expect(request.headers['fastly-key']).toBe(TOKEN);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers.accept).toBe('application/json');
  expect(request.body).toBe('{"surrogate_keys":["img-abc","key-k1"]}');
});

test('300 keys go in requests of at most 256 (256, 44), every key once; 70 in one', async () => {
  const keys = Array.from({ length: 300 }, (_, i) => `img-${i}`);
  await purger().purge({ tags: keys, urls: [] });
  expect(keysSent().map((run) => run.length)).toEqual([256, 44]);
  expect(keysSent().flat()).toEqual(keys);
  await purger().purge({ tags: keys.slice(0, 70), urls: [] });
  expect(keysSent().map((run) => run.length)).toEqual([256, 44, 70]);
});

test('each URL is purged by POST /purge/{host and path, no scheme}, with Fastly-Key and no body', async () => {
  await purger().purge({ tags: ['img-abc'], urls: ['https://cdn.example.com/uploads/abc.jpg', 'https://cdn.example.com:8443/uploads/abc.th.jpg', 'https://cdn.example.com/uploads/abc.jpg'] });
  expect(api.requests.map((request) => `${request.method} ${request.url} ${request.headers['fastly-key']} ${JSON.stringify(request.body)}`)).toEqual([
    `POST /service/${SERVICE}/purge ${TOKEN} "{\\"surrogate_keys\\":[\\"img-abc\\"]}"`,
    `POST /purge/cdn.example.com/uploads/abc.jpg ${TOKEN} ""`,
    `POST /purge/cdn.example.com:8443/uploads/abc.th.jpg ${TOKEN} ""`,
  ]);
});

test('a purge of nothing sends nothing; a URL that is not absolute is refused', async () => {
  await purger().purge({ tags: [], urls: [] });
  expect(api.requests).toHaveLength(0);
  await expect(purger().purge({ tags: [], urls: ['/uploads/abc.jpg'] })).rejects.toThrow('image-api: fastly purge of the URL "/uploads/abc.jpg" failed: not an absolute URL');
  expect(api.requests).toHaveLength(0);
});

test("a refusal rejects with Fastly's status and words, never the token", async () => {
  const { error } = await timed(() => purger(15_000, 'wrong-token-d3Jvbmc').purge({ tags: ['img-abc'], urls: [] }));
  expect(error?.message).toBe('image-api: fastly purge of keys 1-1 of 1 failed: Fastly answered 401 (Provided credentials are missing or invalid)');
  expect(error?.message).not.toContain('wrong-token-d3Jvbmc');
  const { error: urlError } = await timed(() => purger(15_000, 'wrong-token-d3Jvbmc').purge({ tags: [], urls: ['https://cdn.example.com/a.jpg'] }));
  expect(urlError?.message).toBe('image-api: fastly purge of the URL https://cdn.example.com/a.jpg failed: Fastly answered 401 (Provided credentials are missing or invalid)');
});

test('an answer that quotes the token still leaves it out of the message', async () => {
  api.respond = () => refused(403, 'Forbidden', `token ${TOKEN} lacks the purge_select scope`);
  const { error } = await timed(() => purger().purge({ tags: ['img-abc'], urls: [] }));
  expect(error?.message).toContain('Fastly answered 403 (Forbidden: token [token] lacks the purge_select scope)');
  expect(error?.message).not.toContain(TOKEN);
});

test('a URL purge answered 200 without status "ok" rejects', async () => {
  api.respond = () => ({ status: 200, json: { status: 'error', msg: 'purge failed' } });
  await expect(purger().purge({ tags: [], urls: ['https://cdn.example.com/a.jpg'] })).rejects.toThrow(
    'image-api: fastly purge of the URL https://cdn.example.com/a.jpg failed: Fastly answered 200 with status "error" (purge failed)',
  );
});

test('a Fastly that never answers: rejects after about the timeout', async () => {
  api.respond = () => 'never';
  const { ms, error } = await timed(() => purger(200).purge({ tags: ['img-abc'], urls: [] }));
  expect(error?.message).toBe('image-api: fastly purge of keys 1-1 of 1 failed: no answer within 200 ms');
  expect(ms).toBeGreaterThanOrEqual(190);
  expect(ms).toBeLessThan(10_000);
});

test('a Fastly that fails three times, then succeeds: three rejections, then the purge resolves', async () => {
  let calls = 0;
  api.respond = (request) => (++calls <= 3 ? refused(503, 'Service Unavailable') : fastly(request));
  const instance = purger();
  const outcomes: string[] = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    outcomes.push(await instance.purge({ tags: ['img-abc'], urls: [] }).then(() => 'resolved', (error: Error) => error.message));
  }
  expect(outcomes).toEqual([...Array(3).fill('image-api: fastly purge of keys 1-1 of 1 failed: Fastly answered 503 (Service Unavailable)'), 'resolved']);
  expect(keysSent()).toEqual(Array(4).fill(['img-abc']));
});

test('an API nobody listens on rejects with the network error', async () => {
  await api.close();
  await expect(purger().purge({ tags: [], urls: ['https://cdn.example.com/a.jpg'] })).rejects.toThrow(
    'image-api: fastly purge of the URL https://cdn.example.com/a.jpg failed: the request failed (ECONNREFUSED)',
  );
});
