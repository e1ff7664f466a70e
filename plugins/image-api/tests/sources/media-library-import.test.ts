/**
 * The Media Library's imports from URLs (sources/media-library-import.ts) against a loopback fixture
 * server, names resolved by a resolver of the test's own: a name that resolves to loopback, DNS
 * rebinding and an unknown name need no outside resolver. What Strapi's upload flow gets back, what
 * an admin reads when it fails, and what is left in the working folder.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { createAddressPolicy } from '../../server/src/sources/address-policy';
import { IMPORT_ERRORS, importedName, importUrl, type ImportSettings, type UrlFetchProgress } from '../../server/src/sources/media-library-import';
import type { Resolver } from '../../server/src/sources/source-fetcher';
import { startFixtureServer, type FixtureServer } from '../../../../tests/helpers/fixture-server';

let fixtures: FixtureServer;
let dir: string;
const image = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

beforeAll(async () => {
  fixtures = await startFixtureServer('127.0.0.2');
  fixtures.add('a.png', image, 'image/png; charset=binary');
  fixtures.add('named', image, 'image/png', { 'content-disposition': 'attachment; filename="../../holiday%20photo.png"' });
});
afterAll(() => fixtures.close());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ml-import-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const port = () => new URL(fixtures.url('/')).port;
const warnings: string[] = [];
const settings = (extra: Partial<ImportSettings> = {}): ImportSettings => ({
  policy: createAddressPolicy(['127.0.0.2']),
  maxRedirects: 5,
  timeoutMs: 5000,
  sizeLimit: 1000,
  warn: (message) => warnings.push(message),
  ...extra,
});
/** The name resolves to `address`, as a hostile DNS server would answer. */
const resolvesTo = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

/** The message an import failed with, or a failure if it did not. */
async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('ApplicationError');
    return (error as Error).message;
  }
  throw new Error('expected the import to fail');
}

test('gives Strapi\'s upload flow its file object: a temp file of our naming, the name and type the answer gave', async () => {
  const { file } = await importUrl(fixtures.url('/img/a.png'), dir, undefined, settings());
  expect(file).toEqual({
    filepath: expect.stringMatching(new RegExp(`^${dir}/url-import-[0-9a-f-]{36}$`)),
    originalFilename: 'a.png',
    mimetype: 'image/png',
    size: image.length,
    tmpWorkingDirectory: dir,
  });
  expect(fs.readFileSync(file.filepath).equals(image)).toBe(true);
});

test('a Content-Disposition name wins, reduced to a file name', async () => {
  const { file } = await importUrl(fixtures.url('/img/named'), dir, undefined, settings());
  expect(file.originalFilename).toBe('holiday photo.png');
  expect(path.dirname(file.filepath)).toBe(dir);
});

test('names as Strapi names: header, else last segment, else untitled', () => {
  expect(importedName("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.jpg", 'x.jpg')).toBe('résumé.jpg');
  expect(importedName('attachment; filename="%E0%A4%A.jpg"', '')).toBe('%E0%A4%A.jpg');
  expect(importedName(null, 'a/b.jpg')).toBe('b.jpg');
  expect(importedName(null, '', new Date(2024, 1, 23, 14, 30, 52))).toMatch(/^untitled_\d{4}-\d{2}-\d{2}_143052$/);
});

test('progress: the declared length first, then the bytes as they come; a throwing callback is only logged', async () => {
  const seen: UrlFetchProgress[] = [];
  await importUrl(fixtures.url('/img/a.png'), dir, (progress) => seen.push(progress), settings());
  expect(seen[0]).toEqual({ bytesWritten: 0, totalBytes: image.length });
  expect(seen.at(-1)).toEqual({ bytesWritten: image.length, totalBytes: image.length });

  const before = warnings.length;
  const { file } = await importUrl(fixtures.url('/img/a.png'), dir, () => {
    throw new Error('bad consumer');
  }, settings());
  expect(file.size).toBe(image.length);
  expect(warnings.slice(before)).toContain('URL fetch progress callback threw, ignoring: bad consumer');
});

describe('one message for every host it may not reach, and no connection', () => {
  test.each([
    ['a name resolving to loopback', resolvesTo('127.0.0.1')],
    ['a name resolving to 0.0.0.0', resolvesTo('0.0.0.0')],
    ['a name resolving to CGNAT', resolvesTo('100.64.0.1')],
    ['a name resolving to IPv4-mapped loopback', resolvesTo('::ffff:127.0.0.1')],
    ['a name resolving to the metadata service', resolvesTo('169.254.169.254')],
    ['a name that does not resolve', async () => {
      throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    }],
    ['a name with no address', resolvesTo()],
  ])('%s', async (_label, resolver: Resolver) => {
    const before = fixtures.requests.length;
    expect(await failure(importUrl(`http://images.test:${port()}/img/a.png`, dir, undefined, settings({ resolver })))).toBe(IMPORT_ERRORS.refused);
    expect(fixtures.requests.length).toBe(before);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('DNS rebinding: the name is resolved once, and the connection goes where the check said', async () => {
    let answers = 0;
    const resolver: Resolver = async () => [{ address: answers++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    const before = fixtures.requests.length;
    const { file } = await importUrl(`http://rebind.test:${port()}/img/a.png`, dir, undefined, settings({ resolver }));
    expect(file.size).toBe(image.length);
    expect(answers).toBe(1);
    expect(fixtures.requests[before].headers.host).toBe(`rebind.test:${port()}`);
  });

  test('a redirect to a name resolving to loopback', async () => {
    const resolver: Resolver = async (host) => [{ address: host === 'inside.test' ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    const target = encodeURIComponent(`http://inside.test:${port()}/img/a.png`);
    expect(await failure(importUrl(`http://outside.test:${port()}/goto?to=${target}`, dir, undefined, settings({ resolver })))).toBe(IMPORT_ERRORS.refused);
  });
});

test('failures of a host it may reach read alike, and leave nothing', async () => {
  for (const url of [fixtures.url('/status/404'), fixtures.url('/status/503'), fixtures.url('/redirect/6/a.png'), 'http://127.0.0.2:1/a.png']) {
    expect(await failure(importUrl(url, dir, undefined, settings()))).toBe(IMPORT_ERRORS.failed);
  }
  expect(await failure(importUrl(fixtures.url('/slow'), dir, undefined, settings({ timeoutMs: 200 })))).toBe(IMPORT_ERRORS.failed);
  expect(await failure(importUrl(fixtures.url('/stream/5000'), dir, undefined, settings()))).toBe(IMPORT_ERRORS.tooLarge(1000));
  expect(await failure(importUrl('ftp://127.0.0.2/a.png', dir, undefined, settings()))).toBe(IMPORT_ERRORS.invalid);
  expect(fs.readdirSync(dir)).toEqual([]);
});

test('an aborted signal stops the download and leaves no file; an aborted one fetches nothing', async () => {
  const controller = new AbortController();
  const running = importUrl(fixtures.url('/slow'), dir, (progress) => {
    if (progress.bytesWritten === 0) controller.abort();
  }, settings({ signal: controller.signal }));
  expect(await failure(running)).toBe(IMPORT_ERRORS.cancelled);
  await fixtures.idle();
  const before = fixtures.requests.length;
  expect(await failure(importUrl(fixtures.url('/img/a.png'), dir, undefined, settings({ signal: controller.signal })))).toBe(IMPORT_ERRORS.cancelled);
  expect(fixtures.requests.length).toBe(before);
  expect(fs.readdirSync(dir)).toEqual([]);
});
