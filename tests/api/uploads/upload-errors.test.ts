/** Every row of the error table (docs/api.md, "Errors"), and what a refusal leaves behind. */
import fs from 'fs';
import net from 'net';
import { useApp } from '../../helpers/app';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server';
import sharp from 'sharp';
import { html, jpeg, pdf, png, randomBytes, svg, tiff, withPersonalExif } from '../../helpers/fixtures';
import { animatedGif } from '../../../tools/support/images/gif';
import { animatedWebp } from '../../../tools/support/images/webp';

let fixtures: FixtureServer;
let small: Buffer;

const app = useApp({ IMAGE_API_URL_ALLOWLIST: '127.0.0.1' });
beforeAll(async () => {
  fixtures = await startFixtureServer();
  small = await png(32, 32);
  fixtures.add('small.png', small, 'image/png');
  fixtures.add('big.bin', Buffer.alloc(10_000_001, 1));
});
afterAll(async () => {
  await fixtures?.close();
});

const STATUS_TXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 503: 'Service Unavailable', 507: 'Insufficient Storage',
};

function expectError(res: any, status: number, code: number, message: RegExp | string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Object.keys(res.body)).toEqual(['status_code', 'error', 'status_txt']);
  expect(res.body.status_code).toBe(status);
  expect(res.body.status_txt).toBe(STATUS_TXT[status]);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message).toMatch(message);
  expect(res.text).not.toMatch(/\/work\/|node_modules|at .*\.js:\d+|SELECT|INSERT/);
}

const form = (fields: Record<string, string>, path = '/api/1/upload') => app.http.post(path).type('form').send(fields);
const b64 = (b: Buffer) => b.toString('base64');

describe('keys', () => {
  test('no key: 401, 100', async () => {
    expectError(await form({ source: b64(small) }), 401, 100, /No API key provided/);
  });
  test('unknown key: 401, 100', async () => {
    expectError(await form({ key: 'img_doesnotexist', source: b64(small) }), 401, 100, /Invalid API key/);
  });
  test('revoked key: 403, 100', async () => {
    const revoked = await app.createKey('to revoke');
    await app.strapi.plugin('image-api').service('api-keys').revoke('to revoke');
    expectError(await form({ key: revoked, source: b64(small) }), 403, 100, /revoked/);
  });
});

describe('request', () => {
  test('version other than 1: 400, 110', async () => {
    expectError(await form({ key: app.key, source: b64(small) }, '/api/2/upload'), 400, 110, /Invalid API version/);
  });
  test('action other than upload in the path: 400, 120', async () => {
    expectError(await form({ key: app.key, source: b64(small) }, '/api/1/frobnicate'), 400, 120, /Invalid API action/);
  });
  test('action parameter other than upload: 400, 120', async () => {
    expectError(await form({ key: app.key, action: 'delete', source: b64(small) }), 400, 120, /Invalid API action/);
  });
  test('no source: 400, 130', async () => {
    expectError(await form({ key: app.key }), 400, 130, 'Empty upload source: send the image in the `source` field (a file, its base64, or an http(s) URL)');
  });
  test('base64 via GET: 400, 130', async () => {
    expectError(await app.http.get('/api/1/upload').query({ key: app.key, source: b64(small) }), 400, 130, /must be done using POST/);
  });
  test('base64 via GET, too long for the URL limit of the server: still 400, 130', async () => {
    const long = b64(randomBytes(30_000));
    expectError(await app.http.get('/api/1/upload').query({ key: app.key, source: long }), 400, 130, /must be done using POST/);
    expectError(await app.http.get('/api/1/upload/').query({ key: app.key, image: long, format: 'txt' }), 400, 130, /must be done using POST/);
  });
  test('headers over the server\'s limit otherwise: 431 in the API\'s shape', async () => {
    expectError(await app.http.get('/api/1/upload').set('X-Padding', 'x'.repeat(40_000)).query({ key: app.key }), 431, 431, /Request header fields too large/);
  });
  test('bad base64: 400, 120', async () => {
    expectError(await form({ key: app.key, source: 'this is not base64!' }), 400, 120, /Invalid base64 string/);
  });
  // Whatever the body's kind: a urlencoded field, a multipart text part (untyped, as curl's -F sends
  // it), a JSON body; and by GET.
  const sent = {
    urlencoded: (source: string) => form({ key: app.key, source }),
    'multipart text': (source: string) => app.http.post('/api/1/upload').field('key', app.key).field('source', source),
    JSON: (source: string) => app.http.post('/api/1/upload').set('Content-Type', 'application/json').send({ key: app.key, source }),
    GET: (source: string) => app.http.get('/api/1/upload').query({ key: app.key, source }),
  };
  test.each(Object.keys(sent))('bad base64 in a %s body: 400, 120 (by GET: 130, base64 is POST only)', async (kind) => {
    for (const text of ['this is not base64!', '@@@@', 'aGVsbG8*d29ybGQ=']) {
      const res = await sent[kind as keyof typeof sent](text);
      if (kind === 'GET') expectError(res, 400, 130, /must be done using POST/);
      else expectError(res, 400, 120, /Invalid base64 string/);
    }
  });
  test.each(Object.keys(sent))('a file name as the source in a %s body: 400, 120, telling to send the file as multipart (by GET: 130)', async (kind) => {
    for (const text of ['cat.jpg', '@cat.jpg', './photos/cat.jpeg']) {
      const res = await sent[kind as keyof typeof sent](text);
      if (kind === 'GET') expectError(res, 400, 130, 'Upload using base64 source must be done using POST method');
      else expectError(res, 400, 120, /^Invalid base64 string: the source looks like a file name; send the file itself as multipart\/form-data \(curl -F "source=@cat\.jpg"\)$/);
    }
    // A Windows path reads as a URL of scheme `c` (400/320, by GET too): it says the same.
    for (const text of ['C:\\x\\y.png', 'c:/Photos/cat.jpg']) {
      const res = await sent[kind as keyof typeof sent](text);
      expectError(res, 400, 320, /^Unsupported URL scheme \(c\): the source looks like a path on your computer; send the file itself as multipart\/form-data \(curl -F "source=@cat\.jpg"\)$/);
    }
  });
  test.each(Object.keys(sent))('a URL of another scheme, or a mistyped one, in a %s body: 400, 320, nothing fetched', async (kind) => {
    for (const [text, message] of [
      ['file:///etc/passwd', /Unsupported URL scheme \(file\)/],
      ['ftp://127.0.0.1/a.jpg', /Unsupported URL scheme \(ftp\)/],
      ['javascript:alert(1)', /Unsupported URL scheme \(javascript\)/],
      ['https:/127.0.0.1/a.jpg', /Invalid URL: it must start with http:\/\/ or https:\/\//],
      ['HTTP:127.0.0.1/a.jpg', /Invalid URL: it must start with http:\/\/ or https:\/\//],
    ] as const) {
      expectError(await sent[kind as keyof typeof sent](text), 400, 320, message);
    }
  });
  test('bad format value: 400, 140, as JSON', async () => {
    expectError(await form({ key: app.key, source: b64(small), format: 'xml' }), 400, 140, 'Invalid format: use one of json, txt, redirect');
  });
  test('malformed JSON body: 400', async () => {
    const res = await app.http.post('/api/1/upload').set('Content-Type', 'application/json').send('{"key": ');
    expectError(res, 400, 400, /Malformed/);
  });
});

describe('content', () => {
  test.each([
    ['HTML', html],
    ['PDF', pdf],
    ['random bytes', randomBytes(5000)],
  ])('not an image (%s): 400, 310', async (_label, bytes) => {
    expectError(await form({ key: app.key, source: b64(bytes) }), 400, 310, "Can't get target upload source info: the file is not an image");
  });

  test('a truncated JPEG: 400, 311', async () => {
    const photo = await jpeg(400, 300);
    expectError(await form({ key: app.key, source: b64(photo.subarray(0, Math.floor(photo.length / 2))) }), 400, 311, /Invalid image/);
  });
  test('a PNG with a corrupt body: 400, 311', async () => {
    const image = Buffer.from(await png(200, 200));
    image.fill(0x55, 100, image.length - 20);
    expectError(await form({ key: app.key, source: b64(image) }), 400, 311, /Invalid image/);
  });

  test('SVG: 415, 314', async () => {
    expectError(await form({ key: app.key, source: b64(svg) }), 415, 314, 'Disabled image format (svg): this service accepts jpg, png, gif, webp, bmp, heic, avif');
  });
  test('TIFF: 415, 314', async () => {
    expectError(await form({ key: app.key, source: b64(await tiff()) }), 415, 314, 'Disabled image format (tif): this service accepts jpg, png, gif, webp, bmp, heic, avif');
  });
  test('a type removed from allowedTypes: 415, 314', async () => {
    app.strapi.config.set('plugin::image-api.allowedTypes', ['png']);
    try {
      expectError(await form({ key: app.key, source: b64(await jpeg(10, 10)) }), 415, 314, 'Disabled image format (jpg): this service accepts png');
    } finally {
      app.strapi.config.set('plugin::image-api.allowedTypes', ['jpeg', 'png', 'gif', 'webp', 'bmp']);
    }
  });

  test('over the pixel limit: 413, 315', async () => {
    app.strapi.config.set('plugin::image-api.maxPixels', 1000);
    try {
      expectError(await form({ key: app.key, source: b64(await png(40, 30)) }), 413, 315, /Image too large - max 0\.001 megapixels/);
    } finally {
      app.strapi.config.set('plugin::image-api.maxPixels', 100_000_000);
    }
  });
});

describe('over the byte limit: 413, 313, whichever way the bytes come', () => {
  const tooBig = /File too big - max 10 MB/;
  test('file part', async () => {
    const res = await app.upload(app.key, Buffer.alloc(10_000_001, 7), { filename: 'big.png', keyIn: 'field' });
    expectError(res, 413, 313, tooBig);
  });
  test('decoded base64', async () => {
    expectError(await form({ key: app.key, source: b64(Buffer.alloc(10_000_001, 7)) }), 413, 313, tooBig);
  });
  test('urlencoded body over the body limit', async () => {
    const res = await app.http.post('/api/1/upload').type('form').send(`key=${app.key}&source=${'A'.repeat(20_000_000)}`);
    expectError(res, 413, 313, tooBig);
  });
  test('JSON body over the body limit', async () => {
    const res = await app.http.post('/api/1/upload').send({ key: app.key, source: 'A'.repeat(20_000_000) });
    expectError(res, 413, 313, tooBig);
  });
  test('multipart text field over the body limit', async () => {
    const res = await app.http.post('/api/1/upload').field('key', app.key).field('description', 'x'.repeat(20_000_000));
    expectError(res, 413, 313, tooBig);
  });
  test('URL download', async () => {
    expectError(await form({ key: app.key, source: fixtures.url('/img/big.bin') }), 413, 313, tooBig);
  });
});

describe('URL sources', () => {
  test('a non-public address without an allow-list entry: 400, 320', async () => {
    app.strapi.config.set('plugin::image-api.urlAllowlist', []);
    const seen = fixtures.requests.length;
    try {
      expectError(await form({ key: app.key, source: fixtures.url('/img/small.png') }), 400, 320, /non-public address \(loopback\)/);
      expectError(await form({ key: app.key, source: 'http://[::1]:1/x.png' }), 400, 320, /non-public address/);
      expect(fixtures.requests.length).toBe(seen);
    } finally {
      app.strapi.config.set('plugin::image-api.urlAllowlist', ['127.0.0.1']);
    }
  });
  test.each(['file:///etc/passwd', 'ftp://127.0.0.1/x.png', 'gopher://127.0.0.1/'])(
    'a redirect to %s: 400, 320',
    async (target) => {
      const res = await form({ key: app.key, source: fixtures.url(`/goto?to=${encodeURIComponent(target)}`) });
      expectError(res, 400, 320, /Unsupported URL scheme/);
    }
  );
  test('a redirect to a non-public address is checked again: 400, 320', async () => {
    app.strapi.config.set('plugin::image-api.urlAllowlist', ['127.0.0.1']);
    const res = await form({ key: app.key, source: fixtures.url(`/goto?to=${encodeURIComponent('http://[::1]/x.png')}`) });
    expectError(res, 400, 320, /non-public address \(loopback\)/);
  });
  test('non-2xx answer: 400, 321', async () => {
    expectError(await form({ key: app.key, source: fixtures.url('/status/503') }), 400, 321, /HTTP 503/);
  });
  test('too many redirects: 400, 321', async () => {
    fixtures.add('r.png', small, 'image/png');
    expectError(await form({ key: app.key, source: fixtures.url('/redirect/6/r.png') }), 400, 321, /Too many redirects/);
  });
  test('five redirects are followed', async () => {
    const res = await form({ key: app.key, source: fixtures.url('/redirect/5/r.png') });
    expect(res.status).toBe(200);
    expect(res.body.image.original_filename).toBe('r.png');
  });
  test('unreachable: 400, 321', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((r) => server.close(r));
    expectError(await form({ key: app.key, source: `http://127.0.0.1:${port}/x.png` }), 400, 321, /unreachable/);
  });
  test('time limit: 400, 321', async () => {
    app.strapi.config.set('plugin::image-api.fetchTimeoutMs', 300);
    try {
      expectError(await form({ key: app.key, source: fixtures.url('/slow') }), 400, 321, /timed out/);
    } finally {
      app.strapi.config.set('plugin::image-api.fetchTimeoutMs', 15_000);
    }
  });
});

describe('txt and redirect formats answer errors as plain text with the same status', () => {
  test.each(['txt', 'redirect'])('format=%s', async (format) => {
    const res = await form({ key: 'img_nope', source: b64(small), format });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('Invalid API key');
    expect(res.headers.location).toBeUndefined();
  });
  test('a body error with format=txt in the query', async () => {
    const res = await app.http.post('/api/1/upload?format=txt').type('form').send(`key=${app.key}&source=${'A'.repeat(20_000_000)}`);
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('File too big - max 10 MB');
  });
});

describe('animations past their bounds: 413, 315, from the header, naming the bound', () => {
  const upload = (bytes: Buffer, filename: string, fields: Record<string, string | number> = {}) => app.upload(app.key, bytes, { filename, fields, keyIn: 'field' });
  test.each(['gif', 'webp'] as const)('a %s of 501 frames (maxAnimationFrames: 500)', async (type) => {
    const many = type === 'gif' ? animatedGif({ width: 2, height: 2, frames: 501 }) : await animatedWebp({ width: 2, height: 2, frames: 501 });
    expectError(await upload(many, `many.${type}`), 413, 315, 'Animation too long - max 500 frames');
  });
  test('a GIF of 10,000 frames of 100×100 with width=99 (it took 21 s of CPU and stored 12 MB)', async () => {
    const long = animatedGif({ width: 100, height: 100, frames: 10_000, block: 32 });
    expectError(await upload(long, 'long.gif', { width: 99 }), 413, 315, 'Animation too long - max 500 frames');
  });
  test('500 frames of 200×201: 20.1 MP in all (maxAnimationPixels: 20 MP)', async () => {
    const large = animatedGif({ width: 200, height: 201, frames: 500, block: 64, colorBits: 2 });
    expectError(await upload(large, 'large.gif'), 413, 315, 'Animation too large - max 20 megapixels in all its frames');
  });
  test('a still GIF past maxAnimationPixels (its decoder holds a whole frame: a 2.3 MB GIF of 100 MP cost 1.4 GB with width)', async () => {
    app.strapi.config.set('plugin::image-api.maxAnimationPixels', 1_000_000);
    try {
      const still = animatedGif({ width: 1001, height: 1000, frames: 1, block: 64, colorBits: 1 });
      expectError(await upload(still, 'still.gif', { width: 100 }), 413, 315, 'GIF too large - max 1 megapixels');
      // At the bound, it is stored (and deleted again: the file's last test counts what refusals left).
      const fits = animatedGif({ width: 1000, height: 1000, frames: 1, block: 64, colorBits: 1 });
      const stored = await upload(fits, 'fits.gif');
      expect(stored.status).toBe(200);
      expect((await app.http.delete(app.pathOf(stored.body.image.delete_url))).status).toBe(200);
    } finally {
      app.strapi.config.set('plugin::image-api.maxAnimationPixels', 20_000_000);
    }
  });
  test('a frame past maxPixels', async () => {
    app.strapi.config.set('plugin::image-api.maxPixels', 1000);
    try {
      expectError(await upload(animatedGif({ width: 40, height: 30, frames: 2 }), 'frames.gif'), 413, 315, 'Image too large - max 0.001 megapixels');
    } finally {
      app.strapi.config.set('plugin::image-api.maxPixels', 100_000_000);
    }
  });
});

describe('nothing stored is larger than maxBytes: a file the image work makes bigger is refused, 413, 313', () => {
  const withMaxBytes = async (maxBytes: number, run: () => Promise<void>) => {
    app.strapi.config.set('plugin::image-api.maxBytes', maxBytes);
    try {
      await run();
    } finally {
      app.strapi.config.set('plugin::image-api.maxBytes', 10_000_000);
    }
  };
  test('an animation resized to `width`, whose frames no longer compress as they did', async () => {
    const gif = animatedGif({ width: 100, height: 100, frames: 40, block: 2 });
    expect(gif.length).toBeLessThan(200_000);
    await withMaxBytes(200_000, async () => {
      const res = await app.upload(app.key, gif, { filename: 'grows.gif', fields: { width: 99 }, keyIn: 'field' });
      expectError(res, 413, 313, 'File too big - max 0.2 MB as stored');
    });
  });
  test('an animated WebP with EXIF is not made bigger to remove it: the EXIF chunk is cut out, no frame re-encoded (and deleted again)', async () => {
    // Its variants are animations of their own (a .th of 160×160 frames may outgrow a bound set to the
    // upload's size), so the stored original is judged by its bytes rather than by a bound.
    const { exif } = await sharp(await withPersonalExif('webp')).metadata();
    const webp = await animatedWebp({ width: 100, height: 100, frames: 100, exif });
    expect((await sharp(webp).metadata()).exif).toBeDefined();
    const res = await app.upload(app.key, webp, { filename: 'exif.webp', keyIn: 'field' });
    expect(res.status).toBe(200);
    const chunk = 8 + exif!.length + (exif!.length & 1);
    expect(res.body.image.size).toBe(webp.length - chunk);
    const stored = (await app.http.get(app.pathOf(res.body.image.url)).buffer(true)).body as Buffer;
    expect(stored.length).toBe(webp.length - chunk);
    // Every byte from the first frame on is the upload's (the EXIF chunk comes after the frames).
    const firstFrame = webp.indexOf('ANMF');
    expect(stored.subarray(firstFrame, firstFrame + 1000).equals(webp.subarray(firstFrame, firstFrame + 1000))).toBe(true);
    expect((await app.http.delete(app.pathOf(res.body.image.delete_url))).status).toBe(200);
  });
});

test('every refusal above left no file and no row', async () => {
  const images = await app.strapi.db.query('plugin::image-api.image').findMany({ select: ['name'] });
  // Only the "five redirects" upload was accepted.
  expect(images.length).toBe(1);
  expect(fs.readdirSync(app.uploadsDir).sort()).toEqual(
    [`${images[0].name}.png`, `${images[0].name}.th.png`, `${images[0].name}.md.png`].sort()
  );
});

describe('a storage or database failure leaves nothing behind', () => {
  test('the provider fails on the third file', async () => {
    const provider = app.strapi.plugin('upload').provider;
    const original = provider.upload;
    let calls = 0;
    provider.upload = async (file: any) => {
      if (++calls === 3) throw new Error('disk full at /secret/path');
      return original.call(provider, file);
    };
    const before = new Set(fs.readdirSync(app.uploadsDir));
    try {
      const res = await form({ key: app.key, source: b64(small) });
      expectError(res, 500, 500, 'Internal error');
    } finally {
      provider.upload = original;
    }
    expect(fs.readdirSync(app.uploadsDir).filter((f) => !before.has(f))).toEqual([]);
    expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(1);
  });

  test('the database goes away before anything is written (the journal insert): 503 with Retry-After', async () => {
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const files = await app.strapi.db.query('plugin::upload.file').count();
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' });
    const journal = jest.spyOn(app.strapi.plugin('image-api').service('journal'), 'open').mockRejectedValueOnce(lost);
    try {
      const res = await form({ key: app.key, source: b64(small) });
      expectError(res, 503, 503, 'Service unavailable: the database is not answering');
      expect(res.headers['retry-after']).toBe('5');
      expect(journal).toHaveBeenCalledTimes(1);
    } finally {
      journal.mockRestore();
    }
    expect(fs.readdirSync(app.uploadsDir).filter((f) => !before.has(f))).toEqual([]);
    expect(await app.strapi.db.query('plugin::upload.file').count()).toBe(files);
  });

  test('the database fails inside the recording transaction, after the files were written', async () => {
    const before = new Set(fs.readdirSync(app.uploadsDir));
    const counts = async () => ({
      files: await app.strapi.db.query('plugin::upload.file').count(),
      images: await app.strapi.db.query('plugin::image-api.image').count(),
      pending: await app.strapi.db.query('plugin::image-api.pending-upload').count(),
    });
    const start = await counts();
    const quotas = app.strapi.plugin('image-api').service('quotas');
    const written: string[] = [];
    const provider = app.strapi.plugin('upload').provider;
    const uploadStream = provider.upload;
    provider.upload = async (file: any) => {
      written.push(`${file.hash}${file.ext}`);
      return uploadStream.call(provider, file);
    };
    // Runs after the file row is inserted, inside the transaction; not retried (the folder is there).
    const charge = jest.spyOn(quotas, 'charge').mockRejectedValue(new Error('deadlock'));
    let attempts = 0;
    try {
      expectError(await form({ key: app.key, source: b64(small) }), 500, 500, 'Internal error');
      attempts = charge.mock.calls.length;
    } finally {
      charge.mockRestore();
      provider.upload = uploadStream;
    }
    expect(written).toHaveLength(3);
    expect(attempts).toBe(1);
    expect(fs.readdirSync(app.uploadsDir).filter((f) => !before.has(f))).toEqual([]);
    expect(await counts()).toEqual(start);
  });
});
