/**
 * Admission control and stalled bodies (docs/operations.md): past the requests (or bytes) allowed in
 * flight, an upload is refused with 503 and Retry-After before its body is read; a body that stalls
 * or trickles is cut with a 408 in the API's error shape, and nothing is logged as an error.
 */
import net from 'net';
import { useApp } from '../../helpers/app';
import { png } from '../../helpers/fixtures';

let image: Buffer;
let port: number;

const app = useApp();
beforeAll(async () => {
  image = await png(64, 48);
  await new Promise<void>((resolve) => app.strapi.server.httpServer.listen(0, '127.0.0.1', resolve));
  port = (app.strapi.server.httpServer.address() as net.AddressInfo).port;
});

const setOption = (option: string, value: unknown) => app.strapi.config.set(`plugin::image-api.${option}`, value);
const upload = (format = 'json') => app.upload(app.key, image, { query: `format=${format}` });

/**
 * A raw connection (from `localAddress`) that sends an upload's headers and `sent` bytes of its body,
 * then waits. `keyHeader: false`: no X-API-Key header (a key, if any, would come with the body).
 */
function partialUpload(declared: number, sent: string, localAddress = '127.0.0.1', { keyHeader = true, path = '/api/1/upload' } = {}) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${keyHeader ? `X-API-Key: ${app.key}\r\n` : ''}` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${declared}\r\n\r\n${sent}`
  );
  return { socket, closed, received: () => received };
}

describe('admission control', () => {
  afterEach(() => {
    setOption('maxRequestsInFlight', 16);
    setOption('maxBodyBytesInFlight', 200_000_000);
  });

  test('past maxRequestsInFlight: 503 with Retry-After at once, in the format asked; admitted again once a request leaves', async () => {
    setOption('maxRequestsInFlight', 1);
    const held = partialUpload(100_000, 'source=');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const refused = await upload();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.body).toEqual({
      status_code: 503,
      error: { message: 'Service unavailable: too many uploads in progress, try again shortly', code: 503 },
      status_txt: 'Service Unavailable',
    });
    const asText = await upload('txt');
    expect([asText.status, asText.text]).toEqual([503, 'Service unavailable: too many uploads in progress, try again shortly']);

    held.socket.destroy();
    await held.closed;
    await new Promise((r) => setTimeout(r, 100));
    expect((await upload()).status).toBe(200);
  });

  test('past maxBodyBytesInFlight (as declared): 503 as well', async () => {
    setOption('maxBodyBytesInFlight', 150_000);
    const held = partialUpload(100_000, 'source=');
    await new Promise((r) => setTimeout(r, 200));
    // Small enough to fit beside the held body? No: 100 KB + this one's ~1 KB fits; a 60 KB one does not.
    const big = await app.http.post('/api/1/upload').set('X-API-Key', app.key).type('form').send({ source: 'A'.repeat(60_000) });
    expect(big.status).toBe(503);
    expect((await upload()).status).toBe(200);
    held.socket.destroy();
    await held.closed;
  });
});

test('a body declared over the size limit gets its 413 even when the gate is full of bytes: it would hold none', async () => {
  setOption('maxBodyBytesInFlight', 150_000);
  const held = partialUpload(100_000, 'source=');
  try {
    await new Promise((r) => setTimeout(r, 200));
    const huge = partialUpload(50_000_000, 'source=');
    await new Promise<void>((resolve) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (huge.received().includes('}') || Date.now() - started > 3000) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    huge.socket.destroy();
    expect(huge.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(huge.received()).toContain('"code":313');
  } finally {
    held.socket.destroy();
    await held.closed;
    setOption('maxBodyBytesInFlight', 200_000_000);
  }
});

describe('stalled bodies', () => {
  let errors: string[];
  let spy: jest.SpyInstance;
  beforeEach(() => {
    errors = [];
    spy = jest.spyOn(app.strapi.log, 'error').mockImplementation((message: unknown) => {
      errors.push(String(message));
      return app.strapi.log;
    });
  });
  afterEach(() => {
    spy.mockRestore();
    setOption('bodyIdleTimeoutMs', 10_000);
    setOption('bodyMinBytesPerSecond', 1024);
  });

  const expect408 = (text: string) => {
    const [head, body] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(body)).toEqual({
      status_code: 408,
      error: { message: 'Request timeout: the body stalled', code: 408 },
      status_txt: 'Request Timeout',
    });
  };

  test('a body with no byte for bodyIdleTimeoutMs: 408 in the error shape, the connection closed, nothing logged', async () => {
    setOption('bodyIdleTimeoutMs', 300);
    const started = Date.now();
    const stalled = partialUpload(50_000, 'source=AAAA');
    await stalled.closed;
    expect(Date.now() - started).toBeLessThan(2000);
    expect408(stalled.received());
    expect(errors).toEqual([]);
  });

  test('a body trickling under bodyMinBytesPerSecond: 408 as well', async () => {
    setOption('bodyIdleTimeoutMs', 400);
    setOption('bodyMinBytesPerSecond', 1024);
    const started = Date.now();
    const trickle = partialUpload(50_000, 'source=');
    const timer = setInterval(() => trickle.socket.write('A'), 50);
    await trickle.closed;
    clearInterval(timer);
    expect(Date.now() - started).toBeLessThan(2000);
    expect408(trickle.received());
    expect(errors).toEqual([]);
  });

  test('a body that keeps up is not cut, however long it takes', async () => {
    setOption('bodyIdleTimeoutMs', 300);
    setOption('bodyMinBytesPerSecond', 1024);
    const body = `source=${encodeURIComponent(image.toString('base64'))}`;
    const slow = partialUpload(body.length, '');
    let offset = 0;
    // About 10 KB/s, for about 1 s: more than three windows.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        slow.socket.write(body.slice(offset, offset + 500));
        offset += 500;
        if (offset >= body.length) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
    });
    await new Promise((r) => setTimeout(r, 500));
    slow.socket.end();
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 200 OK/);
  });
});

// 16 slow bodies from one address once held every slot, for hours (issue 23, item 1).
describe('one address holds at most its share of the slots', () => {
  afterEach(() => setOption('maxRequestsPerAddress', 1000));

  test('past maxRequestsPerAddress: 429 with Retry-After at once for that address; another address is let in', async () => {
    setOption('maxRequestsPerAddress', 2);
    const held = [partialUpload(100_000, 'source='), partialUpload(100_000, 'source=')];
    await new Promise((r) => setTimeout(r, 200));
    const refused = await upload();
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.body).toEqual({
      status_code: 429,
      error: { message: 'Too many uploads at once from this address: at most 2', code: 429 },
      status_txt: 'Too Many Requests',
    });
    // From 127.0.0.2, the whole upload, read back.
    const body = `source=${encodeURIComponent(image.toString('base64'))}`;
    const other = partialUpload(body.length, body, '127.0.0.2');
    await new Promise<void>((resolve) => other.socket.on('data', () => other.received().includes('"status_txt":"OK"') && resolve()));
    other.socket.destroy();
    expect(other.received()).toMatch(/^HTTP\/1\.1 200 OK/);
    for (const socket of held) socket.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await new Promise((r) => setTimeout(r, 100));
    expect((await upload()).status).toBe(200);
  });
});

// 16 keyless bodies at 2 KB/s from four addresses held every slot: keyed uploads got 503 for as long
// as they trickled (issue 34, attack review).
describe('bodies whose key comes with them hold at most half of the slots', () => {
  afterEach(() => setOption('maxRequestsInFlight', 16));

  /** Resolves with the whole answer once it has arrived. */
  const answered = (held: ReturnType<typeof partialUpload>, until: string) =>
    new Promise<string>((resolve) => {
      const check = () => held.received().includes(until) && resolve(held.received());
      held.socket.on('data', check);
      check();
    });

  test('a stranger fills that half from many addresses; uploads with a key in the header or the query still get in', async () => {
    setOption('maxRequestsInFlight', 4);
    // Without a key header, from four addresses: the first two are let in and wait for their bodies.
    const strangers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((address) => partialUpload(100_000, 'source=', address, { keyHeader: false }));
    const refusedStrangers = await Promise.all(strangers.slice(2).map((held) => answered(held, '}')));
    for (const answer of refusedStrangers) expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(strangers.slice(0, 2).map((held) => held.received())).toEqual(['', '']);
    // A key in the body waits its turn with them.
    const fieldKeyed = await app.upload(app.key, image, { keyIn: 'field' });
    expect([fieldKeyed.status, fieldKeyed.body.error]).toEqual([503, { message: 'Service unavailable: too many uploads in progress, try again shortly', code: 503 }]);

    const headerKeyed = await upload();
    expect([headerKeyed.status, headerKeyed.body.status_txt]).toEqual([200, 'OK']);
    const queryKeyed = await app.http.post(`/1/upload?key=${app.key}`).attach('image', image, 'a.png');
    expect([queryKeyed.status, queryKeyed.body.success]).toEqual([200, true]);
    // A wrong key in the query vouches for nothing.
    const wrongQueryKey = await app.http.post('/1/upload?key=img_wrong').attach('image', image, 'a.png');
    expect(wrongQueryKey.status).toBe(503);

    for (const held of strangers) held.socket.destroy();
    await Promise.all(strangers.map((held) => held.closed));
    await new Promise((r) => setTimeout(r, 100));
    expect((await app.upload(app.key, image, { keyIn: 'field' })).status).toBe(200);
  });
});

test('a body that keeps above the rate floor but has not all arrived by bodyTimeoutMs: 408, the connection closed', async () => {
  app.strapi.config.set('plugin::image-api.bodyTimeoutMs', 1500);
  try {
    const started = Date.now();
    // 2 KB/s: above the 1 KB/s floor, and a 100 KB body would take 50 s.
    const trickle = partialUpload(100_000, 'source=');
    const timer = setInterval(() => trickle.socket.write('A'.repeat(100)), 50);
    await trickle.closed;
    clearInterval(timer);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - started).toBeLessThan(5000);
    const [head, body] = trickle.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(body)).toEqual({ status_code: 408, error: { message: 'Request timeout: the body did not arrive in time', code: 408 }, status_txt: 'Request Timeout' });
  } finally {
    app.strapi.config.set('plugin::image-api.bodyTimeoutMs', 120_000);
  }
});

// Last: the process does not come back from a shutdown.
test('shutting down: new requests get 503 "shutting down" with Connection: close, and /_health says so', async () => {
  await app.strapi.plugin('image-api').service('request-gate').drain(0);
  const res = await upload();
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('2');
  expect(res.headers.connection).toBe('close');
  expect(res.body.error).toEqual({ message: 'Service unavailable: shutting down', code: 503 });
  const health = await app.http.get('/_health');
  expect(health.status).toBe(503);
  expect(health.body.error.message).toBe('Service unavailable: shutting down');
  expect(health.body.checks).toEqual({ database: 'up', shutdown: 'in progress' });
});
