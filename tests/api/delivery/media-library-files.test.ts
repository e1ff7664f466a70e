/**
 * Nothing served from `/uploads/` runs script on the app's origin (docs/security.md, "Serving"). The
 * admin panel shares that origin: an HTML page an Author uploaded to the Media Library, opened by a
 * Super Admin, would run with the admin's session and read every API key (issue 34).
 *
 * - The app's upload settings (config/plugins.ts) refuse active types at upload: an Author's HTML,
 *   JavaScript, SVG, XML, XHTML, MHTML or PDF is refused, and nothing is stored. (Inside Jest,
 *   Strapi's check of the bytes is off, tests/helpers/app.ts notes why: these are its checks of the
 *   declared type and the extension. The browser test runs the app as a process, bytes checked too.)
 * - The plugin serves every other Media Library file inert, whatever the app's settings: such files
 *   are stored here through Strapi's own upload service, which is what the upload controller calls
 *   once its check passed, so as an app without the settings stores them. Anything but a JPEG, PNG,
 *   GIF, WebP, AVIF or BMP gets `Content-Security-Policy: sandbox`, `nosniff` and `attachment`, on
 *   GET, HEAD and a Range; raster images stay inline, with `nosniff`.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { jpeg, png } from '../../helpers/fixtures';
import { listening, requestPath, type RawAnswer } from '../../helpers/raw-path';

const app = useApp();
let port: number;
let author: string;

/** A page that would take a Super Admin's session, inline and from a script beside it (the attack of issue 34). */
const PAGE = Buffer.from(
  '<!DOCTYPE html><title>report</title><script>fetch("/admin/access-token",{method:"POST"}).then(r=>r.json()).then(t=>fetch("/content-manager/collection-types/plugin::image-api.api-key",{headers:{Authorization:"Bearer "+t.data.token}}))</script><script src="/uploads/steal_0123456789.js"></script>'
);
const SCRIPT = Buffer.from('fetch("/admin/access-token",{method:"POST"}).then(r=>r.json()).then(t=>console.log(t.data.token))');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script href="/uploads/steal_0123456789.js"/><script>alert(document.domain)</script></svg>');
const XML = Buffer.from('<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(document.domain)</x:script>');
const MHTML = Buffer.from('MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="b"\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<script>alert(1)</script>\r\n--b--\r\n');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

interface Upload {
  name: string;
  type: string;
  bytes: Buffer;
}

/** What an Author may try to upload that a browser would run, named and typed as it is, or disguised. */
const ACTIVE: Upload[] = [
  { name: 'report.html', type: 'text/html', bytes: PAGE },
  { name: 'report.htm', type: 'text/html', bytes: PAGE },
  { name: 'report.shtml', type: 'text/html', bytes: PAGE },
  { name: 'report.xhtml', type: 'application/xhtml+xml', bytes: PAGE },
  { name: 'steal.js', type: 'application/javascript', bytes: SCRIPT },
  { name: 'steal.mjs', type: 'text/javascript', bytes: SCRIPT },
  { name: 'drawing.svg', type: 'image/svg+xml', bytes: SVG },
  { name: 'feed.xml', type: 'application/xml', bytes: XML },
  { name: 'feed.xml', type: 'text/xml', bytes: XML },
  { name: 'style.xsl', type: 'application/xslt+xml', bytes: XML },
  { name: 'archive.mhtml', type: 'multipart/related', bytes: MHTML },
  { name: 'archive.mht', type: 'message/rfc822', bytes: MHTML },
  { name: 'paper.pdf', type: 'application/pdf', bytes: PDF },
  // The name says HTML whatever the declared type, or the declared type says so without a name's extension.
  { name: 'report.html', type: 'image/png', bytes: PAGE },
  { name: 'report.html', type: 'application/octet-stream', bytes: PAGE },
  { name: 'drawing.svg', type: 'image/png', bytes: SVG },
  { name: 'report', type: 'text/html', bytes: PAGE },
];

const uploadsListing = () => fs.readdirSync(app.uploadsDir).sort();
const fileRows = async () => Number((await app.strapi.db.connection('files').count({ n: '*' }).first())?.n ?? 0);

/** An Author's upload through the Media Library's own route, as the admin panel sends it. */
const authorUpload = ({ name, type, bytes }: Upload) =>
  app.http.post('/upload').set('Authorization', `Bearer ${author}`).attach('files', bytes, { filename: name, contentType: type });

/** Stored through Strapi's upload service: what the upload controller does once its type check passed. */
async function storedWithoutTheSettings({ name, type, bytes }: Upload): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-media-'));
  const filepath = path.join(dir, name);
  fs.writeFileSync(filepath, bytes);
  try {
    const [file] = await app.strapi.plugin('upload').service('upload').upload({ data: { fileInfo: { name } }, files: [{ filepath, originalFilename: name, mimetype: type, size: bytes.length }] });
    return String(file.url);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const headersOf = (answer: RawAnswer) => ({
  type: answer.headers['content-type'],
  nosniff: answer.headers['x-content-type-options'],
  csp: answer.headers['content-security-policy'],
  disposition: answer.headers['content-disposition'],
});

beforeAll(async () => {
  port = await listening(app.strapi.server.httpServer);
  author = await adminToken(app, 'author@img.test', 'Author-pass-1234', 'strapi-author');
});

test("an Author's upload of a type a browser runs is refused by the app's upload settings, and leaves nothing", async () => {
  const [files, rows] = [uploadsListing(), await fileRows()];
  const answers: string[] = [];
  for (const upload of ACTIVE) {
    const res = await authorUpload(upload);
    answers.push(`${upload.name} as ${upload.type}: ${res.status} ${res.body?.error?.name} ${/is not allowed/.test(res.body?.error?.message ?? '')}`);
  }
  expect(answers).toEqual(ACTIVE.map((upload) => `${upload.name} as ${upload.type}: 400 ValidationError true`));
  expect(uploadsListing()).toEqual(files);
  expect(await fileRows()).toBe(rows);
});

test("an Author's raster image is stored, and served inline with nosniff", async () => {
  const res = await authorUpload({ name: 'holiday.png', type: 'image/png', bytes: await png(400, 300) });
  expect(res.status).toBe(201);
  for (const method of ['GET', 'HEAD']) {
    const answer = await requestPath(port, method, res.body[0].url);
    expect([method, answer.status, headersOf(answer)]).toEqual([method, 200, { type: 'image/png', nosniff: 'nosniff', csp: expect.not.stringContaining('sandbox'), disposition: undefined }]);
  }
});

describe('a Media Library file stored as an app without the upload settings stores it', () => {
  const INERT = { nosniff: 'nosniff', csp: "sandbox; default-src 'none'", disposition: 'attachment' };
  const cases: Array<Upload & { served: string }> = [
    { name: 'report.html', type: 'text/html', bytes: PAGE, served: 'text/html; charset=utf-8' },
    { name: 'report.xhtml', type: 'application/xhtml+xml', bytes: PAGE, served: 'application/xhtml+xml' },
    { name: 'steal.js', type: 'application/javascript', bytes: SCRIPT, served: 'application/javascript; charset=utf-8' },
    { name: 'drawing.svg', type: 'image/svg+xml', bytes: SVG, served: 'image/svg+xml' },
    { name: 'feed.xml', type: 'application/xml', bytes: XML, served: 'application/xml' },
    { name: 'paper.pdf', type: 'application/pdf', bytes: PDF, served: 'application/pdf' },
    { name: 'notes.txt', type: 'text/plain', bytes: PAGE, served: 'text/plain; charset=utf-8' },
    { name: 'clip.mp4', type: 'video/mp4', bytes: PAGE, served: 'video/mp4' },
    // Extensions Strapi's static serving does not know: it sends application/octet-stream.
    { name: 'archive.mhtml', type: 'multipart/related', bytes: MHTML, served: 'application/octet-stream' },
    { name: 'report.htmx', type: 'image/png', bytes: PAGE, served: 'application/octet-stream' },
  ];

  test.each(cases)('$name ($type): served as $served, sandboxed, nosniff, a download; on GET, HEAD and a Range', async (upload) => {
    const url = await storedWithoutTheSettings(upload);
    const get = await requestPath(port, 'GET', url);
    expect([get.status, headersOf(get)]).toEqual([200, { type: upload.served, ...INERT }]);
    expect(get.body.equals(upload.bytes)).toBe(true);
    const head = await requestPath(port, 'HEAD', url);
    expect([head.status, headersOf(head), head.body.length]).toEqual([200, { type: upload.served, ...INERT }, 0]);
    const part = await requestPath(port, 'GET', url, { Range: 'bytes=0-9' });
    expect([part.status, headersOf(part), part.body.equals(upload.bytes.subarray(0, 10))]).toEqual([206, { type: upload.served, ...INERT }, true]);
    // Upper case names no file: the one spelling is the stored one.
    const upper = await requestPath(port, 'GET', url.replace('/uploads/', '/UPLOADS/'));
    expect([upper.status, upper.headers['cache-control']]).toEqual([404, 'no-store']);
  });

  test('a .jpg holding a page is served as what its name says, image/jpeg, with nosniff: no browser renders it as a page', async () => {
    const url = await storedWithoutTheSettings({ name: 'photo.jpg', type: 'image/jpeg', bytes: PAGE });
    const get = await requestPath(port, 'GET', url);
    expect([get.status, headersOf(get)]).toEqual([200, { type: 'image/jpeg', nosniff: 'nosniff', csp: expect.not.stringContaining('sandbox'), disposition: undefined }]);
  });

  test('a file without an extension (put there by other means: Strapi names every file with one) is an inert download; a folder is no file', async () => {
    fs.writeFileSync(path.join(app.uploadsDir, 'no_extension_0123456789'), PAGE);
    const get = await requestPath(port, 'GET', '/uploads/no_extension_0123456789');
    expect([get.status, headersOf(get)]).toEqual([200, { type: 'application/octet-stream', ...INERT }]);
    // Strapi's static serving would answer a folder with the index.html in it.
    fs.mkdirSync(path.join(app.uploadsDir, 'folder_0123456789'));
    fs.writeFileSync(path.join(app.uploadsDir, 'folder_0123456789', 'index.html'), PAGE);
    for (const spelling of ['/uploads/folder_0123456789', '/uploads/folder_0123456789/', '/uploads/folder_0123456789/index.html']) {
      const answer = await requestPath(port, 'GET', spelling);
      expect([spelling, answer.status, answer.headers['cache-control']]).toEqual([spelling, 404, 'no-store']);
    }
  });
});

test("API images stay inline with nosniff, from the app and from memory; a record naming another type is served inert", async () => {
  const res = await app.upload(app.key, await jpeg(300, 200), { filename: 'inline.jpg' });
  expect(res.status).toBe(200);
  const url = app.pathOf(res.body.image.url);
  for (let i = 0; i < 2; i++) {
    const answer = await requestPath(port, 'GET', url);
    expect([i, answer.status, headersOf(answer)]).toEqual([i, 200, { type: 'image/jpeg', nosniff: 'nosniff', csp: undefined, disposition: undefined }]);
  }
  // The Media Library entry edited behind the plugin's back: its type is not believed to be harmless.
  await app.strapi.db.query('plugin::upload.file').update({ where: { hash: res.body.image.name }, data: { mime: 'text/html' } });
  const tampered = await requestPath(port, 'GET', url);
  expect([tampered.status, headersOf(tampered)]).toEqual([200, { type: 'text/html', nosniff: 'nosniff', csp: "sandbox; default-src 'none'", disposition: 'attachment' }]);
});
