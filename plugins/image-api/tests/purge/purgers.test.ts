/**
 * The purgers against loopback stand-ins of their providers' APIs, each checking what the
 * provider's published documentation says a request is (method, path, headers, body) and answering
 * as the provider does: Cloudflare's purge_cache, Fastly's purge API, a Varnish with xkey. Retrying is
 * the journal's (tests/api/image-life/purges.test.ts): here each call succeeds or rejects, within
 * its timeout, and no error carries a token.
 */
import http from 'http';
import type { AddressInfo } from 'net';
import { createCloudflarePurger } from '../../server/src/purge/cloudflare-purger';
import { createFastlyPurger } from '../../server/src/purge/fastly-purger';
import { createVarnishPurger } from '../../server/src/purge/varnish-purger';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Reply = { status: number; body: unknown } | 'never';

/** A loopback server that records every request and answers with `reply(request)`. */
async function standIn(reply: (seen: Seen) => Reply) {
  const seen: Seen[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      const answer = reply(request);
      if (answer === 'never') return void held.push(res);
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const TOKEN = 'secret-token-Zq81';
const tags = (n: number, prefix = 'img-') => Array.from({ length: n }, (_, i) => `${prefix}${i.toString(36)}`);
/** The error a call rejects with (the test fails if it resolves). */
const rejection = async (call: Promise<unknown>): Promise<Error> => {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  throw new Error('it resolved');
};

describe('Cloudflare: POST /zones/{zone}/purge_cache, Bearer token, one kind of item, 100 a request', () => {
  const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';
  /** Checks a request as Cloudflare's API reference describes it; answers as Cloudflare does. */
  const documented = (seen: Seen): string | null => {
    if (seen.method !== 'POST') return `method ${seen.method}`;
    if (seen.url !== `/client/v4/zones/${ZONE}/purge_cache`) return `path ${seen.url}`;
    if (seen.headers.authorization !== `Bearer ${TOKEN}`) return 'authorization';
    if (seen.headers['content-type'] !== 'application/json') return 'content type';
    const body = JSON.parse(seen.body);
    const kinds = Object.keys(body);
    if (kinds.length !== 1 || !['tags', 'files'].includes(kinds[0])) return `body ${seen.body}`;
    const items = body[kinds[0]];
    if (!Array.isArray(items) || items.length === 0 || items.length > 100 || !items.every((item) => typeof item === 'string')) return `items ${seen.body}`;
    return null;
  };
  const acknowledged = { status: 200, body: { success: true, errors: [], messages: [], result: { id: ZONE } } };
  const purger = (url: string, timeoutMs = 2000) => createCloudflarePurger({ zone: ZONE, token: TOKEN, api: `${url}/client/v4`, timeoutMs });

  test('tags in requests of at most 100, then the bucket files as `files`; every item once', async () => {
    const api = await standIn((seen) => (documented(seen) ? { status: 400, body: { success: false, errors: [{ code: 1, message: documented(seen) }] } } : acknowledged));
    try {
      const urls = ['https://cdn.example.com/images/a.jpg', 'https://cdn.example.com/images/a.md.jpg', 'https://cdn.example.com/images/a.th.jpg'];
      await purger(api.url).purge({ tags: tags(250), urls });
      const bodies = api.seen.map((seen) => JSON.parse(seen.body));
      expect(bodies.map((body) => [Object.keys(body)[0], (Object.values(body)[0] as string[]).length])).toEqual([['tags', 100], ['tags', 100], ['tags', 50], ['files', 3]]);
      expect(bodies.flatMap((body) => body.tags ?? [])).toEqual(tags(250));
      expect(bodies[3]).toEqual({ files: urls });
      expect(api.seen.map(documented)).toEqual([null, null, null, null]);
    } finally {
      await api.close();
    }
  });

  test('a refusal rejects with its status and Cloudflare\'s errors, never the token; so does a 200 without success', async () => {
    const api = await standIn((seen) =>
      seen.body.includes('img-0')
        ? { status: 403, body: { success: false, errors: [{ code: 10000, message: 'Authentication error' }], messages: [], result: null } }
        : { status: 200, body: { success: false, errors: [{ code: 1134, message: 'Zone is not active' }], messages: [], result: null } }
    );
    try {
      const refused = await rejection(purger(api.url).purge({ tags: ['img-0'], urls: [] }));
      expect(refused.message).toMatch(/^cloudflare: POST 127\.0\.0\.1:\d+\/client\/v4\/zones\/023e105f4ecef8ad9ca31a8372d0c353\/purge_cache answered 403: .*Authentication error/);
      const unacknowledged = await rejection(purger(api.url).purge({ tags: ['img-1'], urls: [] }));
      expect(unacknowledged.message).toBe('cloudflare: POST purge_cache was not acknowledged: 1134 Zone is not active');
      for (const error of [refused, unacknowledged]) expect(`${error.message} ${error.stack}`).not.toContain(TOKEN);
    } finally {
      await api.close();
    }
  });

  test('fails three times, then succeeds: each call rejects three times, then resolves', async () => {
    let calls = 0;
    const api = await standIn(() => (++calls <= 3 ? { status: 503, body: '<html>Service Unavailable</html>' } : acknowledged));
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) outcomes.push(await purger(api.url).purge({ tags: ['img-x'], urls: [] }).then(() => 'ok', (error: Error) => error.message.replace(/\d+\.\d+\.\d+\.\d+:\d+/, 'HOST')));
      expect(outcomes).toEqual([
        ...Array(3).fill('cloudflare: POST HOST/client/v4/zones/023e105f4ecef8ad9ca31a8372d0c353/purge_cache answered 503: <html>Service Unavailable</html>'),
        'ok',
      ]);
    } finally {
      await api.close();
    }
  });

  test('one that never answers: rejected at the timeout, nothing held', async () => {
    const api = await standIn(() => 'never');
    try {
      const started = Date.now();
      const error = await rejection(purger(api.url, 200).purge({ tags: ['img-x'], urls: [] }));
      expect(error.message).toMatch(/^cloudflare: POST 127\.0\.0\.1:\d+\/client\/v4\/zones\/\w+\/purge_cache failed: no answer within 200 ms$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await api.close();
    }
  });

  test('nothing to purge sends nothing', async () => {
    const api = await standIn(() => acknowledged);
    try {
      await purger(api.url).purge({ tags: [], urls: [] });
      expect(api.seen).toEqual([]);
    } finally {
      await api.close();
    }
  });
});

describe('Fastly: surrogate keys 256 a request, URLs one by one, Fastly-Key', () => {
  const SERVICE = 'SU1Z0isxPaozGVKXdv0eY';
  const purger = (url: string, timeoutMs = 2000) => createFastlyPurger({ service: SERVICE, token: TOKEN, api: url, timeoutMs });

  test('what each request is, as Fastly documents it', async () => {
    const api = await standIn((seen) => {
      if (seen.method !== 'POST' || seen.headers['fastly-key'] !== TOKEN) return { status: 401, body: { msg: 'Provided credentials are missing or invalid' } };
      if (seen.url === `/service/${SERVICE}/purge`) {
        const { surrogate_keys: keys } = JSON.parse(seen.body);
        if (seen.headers['content-type'] !== 'application/json' || keys.length > 256) return { status: 400, body: { msg: 'Bad request' } };
        return { status: 200, body: Object.fromEntries(keys.map((key: string, i: number) => [key, `108593-1391560174-${i}`])) };
      }
      if (seen.url.startsWith('/purge/')) return { status: 200, body: { status: 'ok', id: '108593-1391560174-974124' } };
      return { status: 404, body: { msg: 'Record not found' } };
    });
    try {
      await purger(api.url).purge({ tags: tags(300), urls: ['https://cdn.example.com/images/a.jpg', 'https://cdn.example.com/images/a.md.jpg?v=1'] });
      expect(api.seen.map((seen) => [seen.method, seen.url, seen.headers['fastly-key']])).toEqual([
        ['POST', `/service/${SERVICE}/purge`, TOKEN],
        ['POST', `/service/${SERVICE}/purge`, TOKEN],
        ['POST', '/purge/cdn.example.com/images/a.jpg', TOKEN],
        ['POST', '/purge/cdn.example.com/images/a.md.jpg?v=1', TOKEN],
      ]);
      expect(api.seen.slice(0, 2).map((seen) => JSON.parse(seen.body))).toEqual([{ surrogate_keys: tags(300).slice(0, 256) }, { surrogate_keys: tags(300).slice(256) }]);
    } finally {
      await api.close();
    }
  });

  test('a refusal rejects without the token; fails three times then succeeds; never answers: the timeout', async () => {
    let calls = 0;
    const api = await standIn((seen) => (seen.body.includes('never') ? 'never' : ++calls <= 3 ? { status: 401, body: { msg: 'Provided credentials are missing or invalid' } } : { status: 200, body: { 'img-x': '1' } }));
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) outcomes.push(await purger(api.url).purge({ tags: ['img-x'], urls: [] }).then(() => 'ok', (error: Error) => error.message));
      expect(outcomes.slice(0, 3).every((message) => /^fastly: POST 127\.0\.0\.1:\d+\/service\/SU1Z0isxPaozGVKXdv0eY\/purge answered 401: .*Provided credentials are missing or invalid/.test(message))).toBe(true);
      expect(outcomes[3]).toBe('ok');
      expect(outcomes.join(' ')).not.toContain(TOKEN);
      const error = await rejection(purger(api.url, 200).purge({ tags: ['never'], urls: [] }));
      expect(error.message).toMatch(/failed: no answer within 200 ms$/);
    } finally {
      await api.close();
    }
  });
});

describe('Varnish with xkey: PURGE / with xkey-purge, PURGE <path> with Host, to every server', () => {
  const accept = (seen: Seen): Reply => (seen.method === 'PURGE' ? { status: 200, body: 'Purged' } : { status: 405, body: 'Method not allowed' });

  test('each server gets the tags and each URL, with the cached host in Host', async () => {
    const [one, two] = [await standIn(accept), await standIn(accept)];
    try {
      await createVarnishPurger({ servers: [one.url, `${two.url}/`], timeoutMs: 2000 }).purge({ tags: ['img-a', 'img-b'], urls: ['http://127.0.0.1:9090/images/a.jpg'] });
      for (const server of [one, two]) {
        expect(server.seen.map((seen) => [seen.method, seen.url, seen.headers['xkey-purge'], seen.headers.host])).toEqual([
          ['PURGE', '/', 'img-a img-b', server.url.replace('http://', '')],
          ['PURGE', '/images/a.jpg', undefined, '127.0.0.1:9090'],
        ]);
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  test('150 tags go in two requests; one server refusing rejects the purge; one down too', async () => {
    const refusing = await standIn(() => ({ status: 403, body: 'Forbidden' }));
    const fine = await standIn(accept);
    try {
      const error = await rejection(createVarnishPurger({ servers: [fine.url, refusing.url], timeoutMs: 2000 }).purge({ tags: tags(150), urls: [] }));
      expect(error.message).toMatch(/^varnish: PURGE 127\.0\.0\.1:\d+\/ answered 403: Forbidden$/);
      expect(fine.seen.map((seen) => String(seen.headers['xkey-purge']).split(' ').length)).toEqual([100, 50]);
      const down = `http://127.0.0.1:${(refusing.url.split(':').pop() as string)}`;
      await refusing.close();
      expect((await rejection(createVarnishPurger({ servers: [down], timeoutMs: 2000 }).purge({ tags: ['img-a'], urls: [] }))).message).toMatch(/^varnish: PURGE 127\.0\.0\.1:\d+\/ failed: ECONNREFUSED$/);
    } finally {
      await fine.close();
    }
  });
});
