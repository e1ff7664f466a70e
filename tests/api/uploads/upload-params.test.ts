/** Where clients put parameters (docs/api.md, "Parameters"), and the forms the source may take. */
import { useApp } from '../../helpers/app';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server';
import { jpeg, png, randomBytes } from '../../helpers/fixtures';
import { expectUploadJson } from '../../helpers/image-json';
import sharp from 'sharp';

let fixtures: FixtureServer;
let small: Buffer;

const app = useApp({ IMAGE_API_URL_ALLOWLIST: '127.0.0.1' });
beforeAll(async () => {
  fixtures = await startFixtureServer();
  small = await png(64, 48);
  fixtures.add('small.png', small, 'image/png');
});
afterAll(async () => {
  await fixtures?.close();
});

const uploadedFile = async (res: any) => {
  expect(res.status).toBe(200);
  const served = await app.http.get(app.pathOf(res.body.image.url));
  expect(served.status).toBe(200);
  return res.body.image;
};

describe('routes', () => {
  test.each(['/api/1/upload', '/api/1/upload/'])('POST %s works', async (path) => {
    const res = await app.http.post(path).type('form').send({ key: app.key, source: small.toString('base64') });
    expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
  });

  test.each(['/api/1/upload', '/api/1/upload/'])('GET %s with a URL source works', async (path) => {
    const res = await app.http.get(path).query({ key: app.key, source: fixtures.url('/img/small.png'), format: 'json' });
    const image = expectUploadJson(res.body, { extension: 'png', mime: 'image/png' });
    expect(image.original_filename).toBe('small.png');
  });

  test('action=upload is accepted', async () => {
    const res = await app.http.post('/api/1/upload').type('form').send({ key: app.key, action: 'upload', source: small.toString('base64') });
    await uploadedFile(res);
  });

  test('other API routes of the app are untouched', async () => {
    const res = await app.http.get('/api/not-an-api');
    expect(res.status).toBe(404);
    expect(res.body).toHaveProperty('error');
  });
});

describe('the key', () => {
  const base64 = () => small.toString('base64');
  test('in the X-API-Key header', async () => {
    await uploadedFile(await app.http.post('/api/1/upload').set('X-API-Key', app.key).type('form').send({ source: base64() }));
  });
  test('in the query string of a POST', async () => {
    await uploadedFile(await app.http.post(`/api/1/upload?key=${app.key}`).type('form').send({ source: base64() }));
  });
  test('in a urlencoded body', async () => {
    await uploadedFile(await app.http.post('/api/1/upload').type('form').send({ key: app.key, source: base64() }));
  });
  test('in a JSON body', async () => {
    await uploadedFile(await app.http.post('/api/1/upload').send({ key: app.key, source: base64(), format: 'json' }));
  });
  test('in a multipart field, after the file part', async () => {
    await uploadedFile(await app.http.post('/api/1/upload').attach('source', small, 'a.png').field('key', app.key));
  });
  test('the header wins over a wrong key parameter', async () => {
    await uploadedFile(
      await app.http.post('/api/1/upload').set('X-API-Key', app.key).type('form').send({ key: 'img_wrong', source: base64() })
    );
  });
  test('a body value wins over the query value', async () => {
    const res = await app.http.post('/api/1/upload?key=img_wrong&format=txt').type('form').send({ key: app.key, source: base64(), format: 'json' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    await uploadedFile(res);
  });
});

describe('sources', () => {
  test('a 9.9 MB image as urlencoded base64 goes through', async () => {
    // Random bytes do not compress: pad a PNG with a 9.8 MB private chunk-free tail via raw pixels.
    const big = await sharp(randomBytes(1700 * 1940 * 3, 7), { raw: { width: 1700, height: 1940, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(9_800_000);
    expect(big.length).toBeLessThan(10_000_000);
    const res = await app.http
      .post('/api/1/upload')
      .type('form')
      .send(`key=${app.key}&source=${encodeURIComponent(big.toString('base64'))}`);
    const image = await uploadedFile(res);
    expect(image.size).toBe(big.length);
  });

  test('a large urlencoded base64 source among other fields: every field reads as before', async () => {
    const photo = await sharp(randomBytes(200 * 150 * 3, 3), { raw: { width: 200, height: 150, channels: 3 } }).png().toBuffer();
    expect(photo.length * (4 / 3)).toBeGreaterThan(32 * 1024); // the size that takes the source-cutting path
    const base64 = photo.toString('base64');
    // Percent-encoded UTF-8, raw UTF-8, `+` for spaces; the source in the middle with raw `+` and `/`
    // percent-encoded only in part (clients differ), plus a line break.
    const half = Math.floor(base64.length / 2);
    const source = `${encodeURIComponent(base64.slice(0, half))}%0A${base64.slice(half).replace(/\+/g, '%2B')}`;
    const body = Buffer.concat([
      Buffer.from(`title=Caf%C3%A9+at+night&source=${source}&description=`),
      Buffer.from('déjà vu', 'utf8'),
      Buffer.from(`&nsfw=1&key=${app.key}&tags[]=a&tags[]=b`),
    ]);
    // As bytes: superagent would re-serialize a form body.
    const res = await app.http.post('/api/1/upload').set('Content-Type', 'application/x-www-form-urlencoded').serialize(((b: Buffer) => b) as unknown as (obj: unknown) => string).send(body);
    const image = await uploadedFile(res);
    expect(image.size).toBe(photo.length);
    expect([image.title, image.description, image.nsfw]).toEqual(['Café at night', 'déjà vu', '1']);
    const stored = await app.http.get(app.pathOf(image.url));
    expect(Buffer.compare(stored.body, photo)).toBe(0);
  });

  test('a large urlencoded source that is not base64 is still refused as such (400/120)', async () => {
    for (const junk of ['%24'.repeat(20000), `${'QUJD'.repeat(10000)}%ZZ`]) {
      const res = await app.http.post('/api/1/upload').type('form').send(`key=${app.key}&source=${junk}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(120);
    }
  });

  test.each([
    ['a data: URI prefix', (b: Buffer) => `data:image/png;base64,${b.toString('base64')}`],
    ['the URL-safe alphabet without padding', (b: Buffer) => b.toString('base64url')],
    ['line breaks and spaces', (b: Buffer) => b.toString('base64').replace(/(.{76})/g, '$1\r\n ')],
  ])('base64 with %s', async (_label, encode) => {
    const image = await uploadedFile(await app.http.post('/api/1/upload').type('form').send({ key: app.key, source: encode(small) }));
    expect(image.size).toBe(small.length);
  });

  test.each([
    ['standard, percent-encoded', (b: Buffer) => b.toString('base64')],
    ['a data: URI prefix', (b: Buffer) => `data:image/png;base64,${b.toString('base64')}`],
    ['the URL-safe alphabet without padding', (b: Buffer) => b.toString('base64url')],
    ['line breaks and spaces', (b: Buffer) => b.toString('base64').replace(/(.{76})/g, '$1\r\n ')],
  ])('a large base64 source (decoded as it is read, or the general way) with %s is stored byte for byte', async (_label, encode) => {
    const large = await sharp(randomBytes(200 * 150 * 3, 5), { raw: { width: 200, height: 150, channels: 3 } }).png().toBuffer();
    expect(large.length * (4 / 3)).toBeGreaterThan(32 * 1024);
    const res = await app.http.post('/api/1/upload').type('form').send(`key=${app.key}&source=${encodeURIComponent(encode(large))}`);
    const image = await uploadedFile(res);
    expect(image.size).toBe(large.length);
    expect(image.original_filename).toBe(`${image.id_encoded}.png`);
    const stored = await app.http.get(app.pathOf(image.url));
    expect(Buffer.compare(stored.body, large)).toBe(0);
  });

  test('a text `source` still comes before a large base64 `image`, in either order', async () => {
    const large = await jpeg(300, 200);
    const padded = Buffer.concat([large, Buffer.alloc(Math.max(0, 40_000 - large.length))]);
    for (const order of ['source first', 'image first']) {
      const fields = [`source=${encodeURIComponent(small.toString('base64'))}`, `image=${encodeURIComponent(padded.toString('base64'))}`];
      if (order === 'image first') fields.reverse();
      const res = await app.http.post('/api/1/upload').type('form').send(`key=${app.key}&${fields.join('&')}`);
      expect([order, (await uploadedFile(res)).extension]).toEqual([order, 'png']);
    }
    // Alone, the large `image` is the source (answered in imgbb's shape: see imgbb-dialect.test.ts).
    const res = await app.http.post('/api/1/upload').type('form').send(`key=${app.key}&image=${encodeURIComponent(padded.toString('base64'))}`);
    expect(res.status).toBe(200);
    // The padding after the JPEG's end of image is not stored (docs/api.md, "Metadata").
    expect(res.body.data.size).toBe(String(large.length));
  });

  test('the text `image` field is a source too (the imgbb dialect\'s name)', async () => {
    const res = await app.http.post('/api/1/upload').type('form').send({ key: app.key, image: small.toString('base64') });
    expect(res.status).toBe(200);
    expect(res.body.data.image.extension).toBe('png');
    expect((await app.http.get(app.pathOf(res.body.data.url))).status).toBe(200);
  });

  test('a file part wins over a text source', async () => {
    const photo = await jpeg(100, 80);
    const res = await app.http
      .post('/api/1/upload')
      .field('key', app.key)
      .field('source', small.toString('base64'))
      .attach('source', photo, 'photo.jpg');
    const image = await uploadedFile(res);
    expect(image.extension).toBe('jpg');
  });

  test('a text source in a multipart form (URL)', async () => {
    const res = await app.http.post('/api/1/upload').field('key', app.key).field('source', fixtures.url('/img/small.png'));
    expect((await uploadedFile(res)).original_filename).toBe('small.png');
  });

  test('unknown parameters are ignored', async () => {
    await uploadedFile(await app.http.post('/api/1/upload').type('form').send({ key: app.key, source: small.toString('base64'), color: 'blue', tags: 'a,b', privacy: 'private' }));
  });
});

describe('multipart file parts with odd names and types', () => {
  const boundary = '----imgapiBoundary7MA4YWxkTrZu0gW';
  const multipart = (partHeaders: string, body: Buffer) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="key"\r\n\r\n${app.key}\r\n`),
      Buffer.from(`--${boundary}\r\n${partHeaders}\r\n\r\n`),
      body,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
  const send = (partHeaders: string, body = small) =>
    app.http.post('/api/1/upload').set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(multipart(partHeaders, body));

  test.each([
    ['spaces', 'Content-Disposition: form-data; name="source"; filename="my holiday pic.png"\r\nContent-Type: image/png', 'my holiday pic.png', /^my-holiday-pic-/],
    ['UTF-8', 'Content-Disposition: form-data; name="source"; filename="café 写真.png"\r\nContent-Type: image/png', 'café 写真.png', /^cafe-/],
    ["RFC 5987 filename*", "Content-Disposition: form-data; name=\"source\"; filename*=UTF-8''na%C3%AFve%20shot.png\r\nContent-Type: image/png", 'naïve shot.png', /^naive-shot-/],
    ['no extension', 'Content-Disposition: form-data; name="source"; filename="screenshot"\r\nContent-Type: image/png', 'screenshot', /^screenshot-/],
    ['a wrong part type', 'Content-Disposition: form-data; name="source"; filename="pic.gif"\r\nContent-Type: text/html', 'pic.gif', /^pic-/],
    ['no part type', 'Content-Disposition: form-data; name="source"; filename="pic.png"', 'pic.png', /^pic-/],
  ])('filename with %s', async (_label, headers, original, name) => {
    const image = await uploadedFile(await send(headers));
    expect(image.original_filename).toBe(original);
    expect(image.name).toMatch(name);
    expect(image.extension).toBe('png');
    expect(image.size).toBe(small.length);
  });

  test('no filename at all, with a type', async () => {
    const image = await uploadedFile(await send('Content-Disposition: form-data; name="source"\r\nContent-Type: application/octet-stream'));
    expect(image.original_filename).toBe(`${image.id_encoded}.png`);
    expect(image.name).toBe(image.id_encoded);
  });

  test('no filename and no type: raw bytes are still the image', async () => {
    const image = await uploadedFile(await send('Content-Disposition: form-data; name="source"'));
    expect(image.size).toBe(small.length);
  });

  test('a file name with a path and control characters never reaches the disk as given', async () => {
    const image = await uploadedFile(await send('Content-Disposition: form-data; name="source"; filename="../../etc/evil\u0001.png"\r\nContent-Type: image/png'));
    expect(image.name).toMatch(/^[A-Za-z0-9-]+$/);
    expect(image.original_filename).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('logs', () => {
  test("the request log never shows a key from the query string", async () => {
    const lines: string[] = [];
    const spy = jest.spyOn(app.strapi.log, 'http').mockImplementation(((line: string) => {
      lines.push(line);
    }) as any);
    try {
      await app.http.get('/api/1/upload').query({ key: app.key, source: fixtures.url('/img/small.png'), format: 'txt' }).expect(200);
      await app.http.post(`/api/1/upload?format=json&key=${app.key}`).type('form').send({ source: 'bad' }).expect(400);
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^GET \/api\/1\/upload\?key=\[REDACTED\]&source=.* 200$/);
    expect(lines[1]).toMatch(/^POST \/api\/1\/upload\?format=json&key=\[REDACTED\] \(\d+ ms\) 400$/);
    expect(lines.join('\n')).not.toContain(app.key);
  });

  test('nor a key spelled another way the server reads as `key`, nor a delete link\'s secret (issue 23, item 6)', async () => {
    const lines: string[] = [];
    const spy = jest.spyOn(app.strapi.log, 'http').mockImplementation(((line: string) => {
      lines.push(line);
    }) as any);
    let deleteUrl: string;
    try {
      for (const name of ['%6Bey', 'key[]', 'key%5B%5D', 'key[0]']) {
        // Each authenticates: the server reads it as the key.
        const res = await app.http.get(`/api/1/upload?${name}=${app.key}&format=json`).query({ source: fixtures.url('/img/small.png') });
        expect(res.status).toBe(200);
        deleteUrl = res.body.image.delete_url;
      }
      await app.http.post(app.pathOf(deleteUrl!)).expect(200);
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(5);
    const secret = deleteUrl!.split('/').pop()!;
    expect(lines[4]).toMatch(/^POST \/image\/[A-Za-z0-9]+\/delete\/\[REDACTED\] \(\d+ ms\) 200$/);
    expect(lines.join('\n')).not.toContain(app.key);
    expect(lines.join('\n')).not.toContain(secret);
  });
});
