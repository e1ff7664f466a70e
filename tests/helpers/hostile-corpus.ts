/**
 * A seeded corpus of hostile requests (the same on every run). Each case sends one request and says
 * what may come back: 'refused' (a 4xx in the API's error shape, docs/api.md "Errors") or 'refused-or-safe' (that, or a
 * 200 that stored a real image).
 */
import sharp from 'sharp';
import type { Test } from 'supertest';
import { bmp, gif, html, jpeg, pdf, png, svg, tiff, webp } from './fixtures';

export type Expect = 'refused' | 'refused-or-safe';
export interface HostileCase {
  label: string;
  expect: Expect;
  send: (http: any, key: string) => Test;
}

/** xorshift32: deterministic bytes and choices. */
export function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    bytes: (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256))),
  };
}

const crc32 = (buf: Buffer) => {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
};

/** A PNG whose IHDR claims width × height (valid CRC), with a tiny IDAT. */
function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from('789c636000000001000100', 'hex')),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF whose logical screen and single frame claim width × height. */
function gifClaiming(width: number, height: number): Buffer {
  const b = Buffer.from('474946383961' + '0000' + '0000' + '800000' + '000000ffffff' + '2c' + '00000000' + '0000' + '0000' + '00' + '02024401003b', 'hex');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  b.writeUInt16LE(width, 23);
  b.writeUInt16LE(height, 25);
  return b;
}

/** A JPEG whose SOF0 claims width × height. */
async function jpegClaiming(width: number, height: number): Promise<Buffer> {
  const real = Buffer.from(await jpeg(16, 16));
  const sof = real.indexOf(Buffer.from([0xff, 0xc0]));
  real.writeUInt16BE(height, sof + 5);
  real.writeUInt16BE(width, sof + 7);
  return real;
}

const asFile = (bytes: Buffer, name: string) => (http: any, key: string) =>
  http.post('/api/1/upload').field('key', key).attach('source', bytes, name);
const asBase64 = (bytes: Buffer) => (http: any, key: string) =>
  http.post('/api/1/upload').type('form').send({ key, source: bytes.toString('base64') });
const raw = (contentType: string, body: Buffer | string, path = '/api/1/upload') => (http: any, key: string) =>
  http.post(`${path}${path.includes('?') ? '&' : '?'}key=${key}`).set('Content-Type', contentType).send(body);

export async function buildCorpus(seed = 20261122): Promise<HostileCase[]> {
  const r = rng(seed);
  const cases: HostileCase[] = [];
  const add = (label: string, expect: Expect, send: HostileCase['send']) => cases.push({ label, expect, send });

  // Random bytes, as a file and as base64.
  for (let i = 0; i < 20; i++) add(`random file #${i}`, 'refused', asFile(r.bytes(r.int(1, 60_000)), `r${i}.jpg`));
  for (let i = 0; i < 10; i++) add(`random base64 #${i}`, 'refused', asBase64(r.bytes(r.int(1, 30_000))));

  // Truncated and header-corrupted files of each type.
  const samples: Record<string, Buffer> = {
    jpeg: await jpeg(200, 150), png: await png(200, 150), gif: await gif(120, 90), webp: await webp(200, 150), bmp: bmp(60, 40),
  };
  for (const [type, bytes] of Object.entries(samples)) {
    for (const cut of [0.01, 0.1, 0.35, 0.6, 0.95]) {
      add(`${type} truncated to ${cut}`, 'refused-or-safe', asFile(bytes.subarray(0, Math.max(1, Math.floor(bytes.length * cut))), `t.${type}`));
    }
    for (let i = 0; i < 5; i++) {
      const broken = Buffer.from(bytes);
      for (let k = 0; k < r.int(1, 4); k++) broken[r.int(0, Math.min(63, broken.length - 1))] = r.int(0, 255);
      add(`${type} header corrupted #${i}`, 'refused-or-safe', asFile(broken, `c.${type}`));
    }
    add(`${type} body overwritten`, 'refused-or-safe', asFile(Buffer.concat([bytes.subarray(0, 40), r.bytes(bytes.length - 40)]), `o.${type}`));
  }

  // Headers of types we refuse, cut short: a 400, never a 500 (issue 23, item 7).
  const tiffBytes = await tiff();
  const jp2Head = Buffer.from('0000000C6A5020200D0A870A00000014667479706A703220', 'hex');
  for (const cut of [4, 8, 10, 16]) add(`TIFF header cut to ${cut} bytes`, 'refused', asFile(tiffBytes.subarray(0, cut), 't.tif'));
  for (const cut of [12, 20]) add(`JPEG 2000 header cut to ${cut} bytes`, 'refused', asFile(jp2Head.subarray(0, cut), 't.jp2'));

  // Headers claiming huge dimensions: refused from the header, never decoded.
  const claims: Array<[string, Buffer]> = [
    ['PNG 100000×100000', pngClaiming(100_000, 100_000)],
    ['PNG 2^31-1 wide', pngClaiming(0x7fffffff, 1)],
    ['PNG 0×0', pngClaiming(0, 0)],
    ['GIF 65535×65535', gifClaiming(65535, 65535)],
    ['JPEG 65000×65000', await jpegClaiming(65000, 65000)],
    ['BMP 100000×100000', (() => { const b = bmp(2, 2); b.writeInt32LE(100_000, 18); b.writeInt32LE(100_000, 22); return b; })()],
  ];
  for (const [label, bytes] of claims) {
    add(`${label} (file)`, 'refused', asFile(bytes, 'huge.img'));
    add(`${label} (base64)`, 'refused', asBase64(bytes));
  }

  // Polyglots and documents dressed as images.
  const tinyGif = await gif(4, 4);
  const tinyPng = await png(8, 8);
  add('GIF89a + HTML', 'refused-or-safe', asFile(Buffer.concat([Buffer.from('GIF89a'), html]), 'x.gif'));
  add('HTML + GIF tail', 'refused', asFile(Buffer.concat([html, tinyGif]), 'x.gif'));
  add('PNG + trailing script', 'refused-or-safe', asFile(Buffer.concat([tinyPng, Buffer.from('<script>alert(1)</script>')]), 'x.png'));
  add('JPEG + trailing ZIP', 'refused-or-safe', asFile(Buffer.concat([await jpeg(8, 8), Buffer.from('504b0304', 'hex'), r.bytes(200)]), 'x.jpg'));
  add('SVG with script', 'refused', asFile(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'x.png'));
  add('SVG as base64', 'refused', asBase64(svg));
  add('PDF named .jpg', 'refused', asFile(pdf, 'x.jpg'));
  add('XML', 'refused', asFile(Buffer.from('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'), 'x.png'));
  add('shell script', 'refused', asFile(Buffer.from('#!/bin/sh\nrm -rf /\n'), 'x.png'));
  add('JavaScript', 'refused', asFile(Buffer.from('(function(){alert(1)})()'), 'x.gif'));
  add('empty file', 'refused', asFile(Buffer.alloc(0), 'empty.png'));
  add('ZIP', 'refused', asFile(Buffer.concat([Buffer.from('504b0304', 'hex'), r.bytes(100)]), 'x.png'));

  // Malformed and truncated multipart.
  const B = 'hostileBoundary';
  const mp = `multipart/form-data; boundary=${B}`;
  const part = (headers: string, body: string | Buffer) => Buffer.concat([Buffer.from(`--${B}\r\n${headers}\r\n\r\n`), Buffer.from(body), Buffer.from('\r\n')]);
  const keyPart = (key: string) => part('Content-Disposition: form-data; name="key"', key);
  const multipart: Array<[string, (key: string) => Buffer | string, string?]> = [
    ['no closing boundary', (k) => Buffer.concat([keyPart(k), part('Content-Disposition: form-data; name="source"; filename="a.png"', tinyPng)])],
    ['truncated mid-part', (k) => Buffer.concat([keyPart(k), Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="source"; filename="a.png"\r\n\r\n`), tinyPng.subarray(0, 20)])],
    ['wrong boundary', (k) => Buffer.concat([keyPart(k), Buffer.from('--otherBoundary--\r\n')])],
    ['no boundary parameter', () => 'whatever', 'multipart/form-data'],
    ['empty boundary', () => '----\r\n', 'multipart/form-data; boundary='],
    ['part without Content-Disposition', (k) => Buffer.concat([keyPart(k), part('Content-Type: image/png', tinyPng), Buffer.from(`--${B}--\r\n`)])],
    ['garbage headers', (k) => Buffer.concat([keyPart(k), part('\u0000\u0001\u0002: \u00ff', tinyPng), Buffer.from(`--${B}--\r\n`)])],
    ['no CRLF after headers', (k) => Buffer.concat([keyPart(k), Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="source"`), tinyPng, Buffer.from(`--${B}--\r\n`)])],
    ['only a closing boundary', () => `--${B}--\r\n`],
    ['binary junk', () => r.bytes(5000)],
    ['200 empty parts', (k) => Buffer.concat([keyPart(k), ...Array.from({ length: 200 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, '')), Buffer.from(`--${B}--\r\n`)])],
    ['8 file parts', (k) => Buffer.concat([keyPart(k), ...Array.from({ length: 8 }, () => part('Content-Disposition: form-data; name="source"; filename="a.png"\r\nContent-Type: image/png', tinyPng)), Buffer.from(`--${B}--\r\n`)])],
    ['nested multipart', (k) => Buffer.concat([keyPart(k), part('Content-Disposition: form-data; name="source"\r\nContent-Type: multipart/mixed; boundary=inner', '--inner\r\n\r\nx\r\n--inner--'), Buffer.from(`--${B}--\r\n`)])],
    ['filename with path and NUL', (k) => Buffer.concat([keyPart(k), part('Content-Disposition: form-data; name="source"; filename="../../../etc/passwd\u0000.png"', tinyPng), Buffer.from(`--${B}--\r\n`)])],
    ['4000-character filename', (k) => Buffer.concat([keyPart(k), part(`Content-Disposition: form-data; name="source"; filename="${'a'.repeat(4000)}.png"`, tinyPng), Buffer.from(`--${B}--\r\n`)])],
    ['huge header line', (k) => Buffer.concat([keyPart(k), part(`Content-Disposition: form-data; name="source"; x="${'y'.repeat(100_000)}"`, tinyPng), Buffer.from(`--${B}--\r\n`)])],
    ['field name 50 KB', (k) => Buffer.concat([keyPart(k), part(`Content-Disposition: form-data; name="${'n'.repeat(50_000)}"`, 'v'), Buffer.from(`--${B}--\r\n`)])],
    ['source part is empty', (k) => Buffer.concat([keyPart(k), part('Content-Disposition: form-data; name="source"; filename="a.png"', ''), Buffer.from(`--${B}--\r\n`)])],
    ['quoted-printable transfer encoding', (k) => Buffer.concat([keyPart(k), part('Content-Disposition: form-data; name="source"; filename="a.png"\r\nContent-Transfer-Encoding: quoted-printable', '=89PNG'), Buffer.from(`--${B}--\r\n`)])],
    ['LF-only line breaks', (k) => Buffer.from(`--${B}\nContent-Disposition: form-data; name="key"\n\n${k}\n--${B}--\n`)],
  ];
  for (const [label, body, type] of multipart) {
    const expect: Expect = label.includes('8 file parts') || label.includes('path and NUL') || label.includes('4000') || label.includes('huge header') || label.includes('no closing') || label.includes('field name') ? 'refused-or-safe' : 'refused';
    add(`multipart: ${label}`, expect, (http: any, key: string) => http.post('/api/1/upload').set('Content-Type', type ?? mp).send(body(key)));
  }

  // Broken and odd JSON.
  const json: Array<[string, (key: string) => string]> = [
    ['unterminated object', () => '{'],
    ['unterminated string', (k) => `{"key":"${k}","source":"AAAA`],
    ['array', () => '[]'],
    ['string', () => '"source"'],
    ['null', () => 'null'],
    ['number source', (k) => `{"key":"${k}","source":123}`],
    ['object source', (k) => `{"key":"${k}","source":{"$ne":null}}`],
    ['array source', (k) => `{"key":"${k}","source":["x"]}`],
    ['object key', () => '{"key":{"$gt":""},"source":"AAAA"}'],
    ['deep nesting', () => '['.repeat(5000) + ']'.repeat(5000)],
    ['invalid UTF-8', (k) => `{"key":"${k}","source":"\udc80"}`],
    ['NaN', () => '{"source":NaN}'],
    ['trailing garbage', (k) => `{"key":"${k}"} garbage`],
    ['prototype pollution', (k) => `{"key":"${k}","__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"source":"AAAA"}`],
    ['duplicate keys', (k) => `{"key":"${k}","source":"AAAA","source":"%%%%"}`],
  ];
  for (const [label, body] of json) add(`JSON: ${label}`, 'refused', (http: any, key: string) => http.post('/api/1/upload').set('Content-Type', 'application/json').send(body(key)));

  // Repeated and huge fields.
  const form = (body: (key: string) => string, path = '/api/1/upload') => (http: any, key: string) => http.post(path).type('form').send(body(key));
  add('source repeated 50 times', 'refused', form((k) => `key=${k}&` + Array.from({ length: 50 }, () => 'source=AAAA').join('&')));
  add('key repeated with bad values', 'refused', form((k) => `key=img_bad&key=${k}&key=x&source=AAAA`));
  add('format repeated', 'refused', form((k) => `key=${k}&format=txt&format=xml&source=%%%`));
  add('2000 parameters', 'refused', form((k) => `key=${k}&` + Array.from({ length: 2000 }, (_, i) => `p${i}=${i}`).join('&')));
  add('5 MB description', 'refused', form((k) => `key=${k}&description=${'d'.repeat(5_000_000)}&source=AAAA`));
  add('100 KB parameter name', 'refused', form((k) => `key=${k}&${'n'.repeat(100_000)}=1`));
  add('nested source[a][b][c]', 'refused', form((k) => `key=${k}&source[a][b][c]=x`));
  add('source[]', 'refused', form((k) => `key=${k}&source[]=x&source[]=y`));
  add('format[]', 'refused', form((k) => `key=${k}&format[]=json&source=AAAA`));
  add('percent-encoding garbage', 'refused', form((k) => `key=${k}&source=%E0%A4%A&x=%%%`));
  add('200 multipart text fields', 'refused', (http: any, key: string) => {
    let req = http.post('/api/1/upload').field('key', key);
    for (let i = 0; i < 200; i++) req = req.field(`f${i}`, 'x'.repeat(100));
    return req;
  });
  add('title 1 MB', 'refused', form((k) => `key=${k}&title=${'t'.repeat(1_000_000)}`));
  add('NUL bytes in fields', 'refused', form((k) => `key=${k}%00&source=%00%00`));
  add('key of 100 KB', 'refused', form(() => `key=${'k'.repeat(100_000)}&source=AAAA`));
  add('text/plain body', 'refused', raw('text/plain', 'source=AAAA'));
  add('octet-stream body', 'refused', raw('application/octet-stream', tinyPng));
  add('XML body', 'refused', raw('application/xml', '<source>AAAA</source>'));
  add('unknown charset', 'refused', raw('application/x-www-form-urlencoded; charset=x-klingon', 'source=AAAA'));
  add('gzip content-encoding lie', 'refused', (http: any, key: string) => http.post(`/api/1/upload?key=${key}`).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{"source":"AAAA"}'));

  // Odd methods and paths.
  const plain = (method: string, path: string) => (http: any) => http[method](path);
  for (const method of ['put', 'patch', 'delete']) add(`${method.toUpperCase()} /api/1/upload`, 'refused', plain(method, '/api/1/upload'));
  for (const path of [
    '/api/1/', '/api/1/upload/extra', '/api/1/UPLOAD', '/api/0/upload', '/api/01/upload', '/api/99999999999999999999/upload',
    '/api/1/upload%00', '/api/1/%2e%2e/upload', '/api/1/upload/../../admin', '/api/1/upload;jsessionid=1', '/api/1//upload',
    '/api/1/upload?format=%00', '/api/1/upload?format=JSON', '/api/1/upload?format[]=json', '/api/1/upload?key[]=a&key[]=b',
  ]) {
    add(`GET ${path}`, 'refused', plain('get', path));
    add(`POST ${path}`, 'refused', plain('post', path));
  }

  // URL sources aimed at this machine or private networks (refused before any connection).
  for (const url of [
    'http://127.1/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://2130706433/', 'http://0/', 'http://[::ffff:7f00:1]/',
    'http://[::1]/', 'http://localhost/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://192.168.1.1/',
    'http://100.64.0.1/', 'http://[fd00::1]/', 'http://[::ffff:169.254.169.254]/', 'http://user:pass@127.0.0.1/',
    'http://127.0.0.1:99999/', 'http://[::1', 'http:///x.png', 'HTTP://127.0.0.1/', 'http://0.0.0.0:1337/api/1/upload',
  ]) {
    add(`URL ${url}`, 'refused', (http: any, key: string) => http.post('/api/1/upload').type('form').send({ key, source: url }));
  }
  add('URL via GET', 'refused', (http: any, key: string) => http.get('/api/1/upload').query({ key, source: 'http://127.1/' }));
  return cases;
}
