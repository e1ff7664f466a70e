/**
 * URL fetching through a loopback fixture server. Names resolve through an injected resolver, so
 * the tests prove the connection goes where the check said (pinning) and never touch real DNS or
 * any address beyond loopback.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { createAddressPolicy } from '../../server/src/sources/address-policy';
import { fetchSource, type Resolver } from '../../server/src/sources/source-fetcher';
import { startFixtureServer, type FixtureServer } from '../../../../tests/helpers/fixture-server';
import { refusal } from '../refusal';

let fixtures: FixtureServer;
let dir: string;
const image = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

beforeAll(async () => {
  fixtures = await startFixtureServer();
  fixtures.add('a.png', image, 'image/png');
});
afterAll(() => fixtures.close());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetcher-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const port = () => new URL(fixtures.url('/')).port;
const options = (resolver?: Resolver, allowlist = ['127.0.0.1']) => ({
  policy: createAddressPolicy(allowlist),
  maxBytes: 1000,
  timeoutMs: 2000,
  maxRedirects: 5,
  destination: path.join(dir, 'out'),
  resolver,
});

test('downloads to the destination and reports bytes, the last path segment and the type', async () => {
  const result = await fetchSource(fixtures.url('/img/a.png'), options());
  expect(result).toEqual({ filepath: path.join(dir, 'out'), bytes: image.length, filename: 'a.png', contentType: 'image/png', contentDisposition: null });
  expect(fs.readFileSync(result.filepath).equals(image)).toBe(true);
});

test('the connection is pinned to the address the resolver gave and the policy approved', async () => {
  const calls: string[] = [];
  const resolver: Resolver = async (host) => {
    calls.push(host);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  // "images.test" exists nowhere but in this resolver: success proves no other lookup happened.
  const before = fixtures.requests.length;
  await fetchSource(`http://images.test:${port()}/img/a.png`, options(resolver));
  expect(calls).toEqual(['images.test']);
  expect(fixtures.requests[before].headers.host).toBe(`images.test:${port()}`);
});

test('DNS rebinding: a second answer is never used for the checked request', async () => {
  let answers = 0;
  const resolver: Resolver = async () => (answers++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '127.0.0.2', family: 4 }]);
  await fetchSource(`http://rebind.test:${port()}/img/a.png`, options(resolver));
  expect(answers).toBe(1);
});

test('a name resolving to a refused address is refused before any connection', async () => {
  const before = fixtures.requests.length;
  const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  expect(await refusal(fetchSource(`http://evil.test:${port()}/img/a.png`, options(resolver, [])))).toEqual({
    status: 400,
    code: 320,
    message: 'URL resolves to a non-public address (loopback)',
  });
  expect(fixtures.requests.length).toBe(before);
});

test('with several addresses, an approved one is picked', async () => {
  const resolver: Resolver = async () => [
    { address: '::1', family: 6 },
    { address: '127.0.0.1', family: 4 },
  ];
  await expect(fetchSource(`http://two.test:${port()}/img/a.png`, options(resolver))).resolves.toMatchObject({ bytes: image.length });
});

test('every redirect is checked again, with the resolver', async () => {
  const seen: string[] = [];
  const resolver: Resolver = async (host) => {
    seen.push(host);
    return [{ address: host === 'inside.test' ? '127.0.0.2' : '127.0.0.1', family: 4 }];
  };
  const target = encodeURIComponent(`http://inside.test:${port()}/img/a.png`);
  expect(await refusal(fetchSource(`http://outside.test:${port()}/goto?to=${target}`, options(resolver)))).toMatchObject({ code: 320 });
  expect(seen).toEqual(['outside.test', 'inside.test']);
});

test('credentials in the URL are not sent', async () => {
  const before = fixtures.requests.length;
  await fetchSource(fixtures.url('/img/a.png').replace('http://', 'http://user:secret@'), options());
  expect(fixtures.requests[before].headers.authorization).toBeUndefined();
  expect(fixtures.requests[before].headers.cookie).toBeUndefined();
});

test('the byte cap counts bytes received, with no Content-Length', async () => {
  expect(await refusal(fetchSource(fixtures.url('/stream/5000'), options()))).toMatchObject({ status: 413, code: 313 });
  expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  await expect(fetchSource(fixtures.url('/stream/1000'), options())).resolves.toMatchObject({ bytes: 1000 });
});

test('a Content-Length over the cap is refused before reading', async () => {
  fixtures.add('big', Buffer.alloc(1001));
  expect(await refusal(fetchSource(fixtures.url('/img/big'), options()))).toMatchObject({ status: 413, code: 313 });
});

test('redirect limit: exactly maxRedirects are followed', async () => {
  await expect(fetchSource(fixtures.url('/redirect/5/a.png'), options())).resolves.toMatchObject({ filename: 'a.png' });
  expect(await refusal(fetchSource(fixtures.url('/redirect/6/a.png'), options()))).toMatchObject({ code: 321, message: 'Too many redirects (more than 5)' });
});

test.each(['ftp://127.0.0.1/a.png', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url'])('refuses %s', async (url) => {
  expect(await refusal(fetchSource(url, options()))).toMatchObject({ status: 400, code: 320 });
});

test('the time limit covers a body that never ends', async () => {
  const started = Date.now();
  expect(await refusal(fetchSource(fixtures.url('/slow'), { ...options(), timeoutMs: 200 }))).toMatchObject({ code: 321, message: 'Source URL timed out after 0.2 s' });
  expect(Date.now() - started).toBeLessThan(2000);
  expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
});

test('an unresolvable name is 321', async () => {
  const resolver: Resolver = async () => {
    throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  expect(await refusal(fetchSource('http://nowhere.test/a.png', options(resolver)))).toMatchObject({ code: 321, message: 'Could not resolve host nowhere.test' });
});
