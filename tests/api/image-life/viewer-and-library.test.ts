/** The viewer page and its view counter; API uploads in the Media Library; CORS. */
import fs from 'fs';
import { useApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { jpeg } from '../../helpers/fixtures';

const app = useApp();

const upload = async (fields: Record<string, string> = {}) => {
  const res = await app.upload(app.key, await jpeg(900, 600), { fields, filename: 'sunset.jpg', keyIn: 'field' });
  expect(res.status).toBe(200);
  return res.body.image;
};

describe('viewer page', () => {
  test('shows the image, title, size, dimensions and views, with unfurl tags', async () => {
    const image = await upload({ title: 'Sunset <over> "the" sea', description: 'Taken & kept' });
    const res = await app.http.get(`/image/${image.id_encoded}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.text;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<title>Sunset &lt;over&gt; &quot;the&quot; sea</title>');
    expect(html).toContain(`<img src="${image.url}"`);
    expect(html).toContain('<meta property="og:title" content="Sunset &lt;over&gt; &quot;the&quot; sea">');
    expect(html).toContain(`<meta property="og:image" content="${image.medium.url}">`);
    expect(html).toContain(`<meta property="og:image:width" content="${image.medium.width}">`);
    expect(html).toContain(`<meta property="og:image:height" content="${image.medium.height}">`);
    expect(html).toContain(`<meta property="og:url" content="${image.url_viewer}">`);
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(html).toContain(`<meta name="twitter:image" content="${image.medium.url}">`);
    expect(html).toContain('<meta property="og:description" content="Taken &amp; kept">');
    expect(html).toContain('900 × 600');
    expect(html).toContain(image.size_formatted);
    expect(html).toContain('<span class="views">1 view</span>');
    expect(html).not.toContain('<over>');
  });

  test('each view counts once, concurrent views included', async () => {
    const image = await upload();
    await Promise.all(Array.from({ length: 20 }, () => app.http.get(`/image/${image.id_encoded}`).expect(200)));
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: image.id_encoded } });
    expect(Number(record.views)).toBe(20);
    const res = await app.http.get(`/image/${image.id_encoded}`);
    expect(res.text).toContain('<span class="views">21 views</span>');
  });

  test.each(['Nope12345', 'x'.repeat(40), '..%2F..%2Fetc'])('an unknown id (%s) gets a 404 HTML page', async (id) => {
    const res = await app.http.get(`/image/${id}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Image not found');
  });
});

describe('Media Library', () => {
  test('an API upload is a file in the "API uploads" folder, with .th and .md recorded and no responsive formats', async () => {
    const image = await upload();
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name }, populate: { folder: true } });
    expect(file.folder.name).toBe('API uploads');
    expect(file.folderPath).toBe(file.folder.path);
    expect(file.provider).toBe('local');
    expect(file.url).toBe(`/uploads/${image.filename}`);
    expect(Object.keys(file.formats).sort()).toEqual(['medium', 'thumbnail']);
    expect(file.formats.thumbnail).toMatchObject({ hash: `${image.name}.th`, ext: '.jpg', width: 160, height: 160, url: `/uploads/${image.thumb.filename}` });
    expect(file.formats.medium).toMatchObject({ hash: `${image.name}.md`, width: 500, height: 333, url: `/uploads/${image.medium.filename}` });
    expect(file.name).toBe('sunset.jpg');
    expect(file.size).toBeCloseTo(image.size / 1000, 1);
    const folders = await app.strapi.db.query('plugin::upload.folder').findMany({ where: { name: 'API uploads' } });
    expect(folders).toHaveLength(1);
  });

  test("a file's name, caption and alternative text: the title when given, else the client's file name, else the id", async () => {
    const fileOf = (image: any) => app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
    const titled = await fileOf(await upload({ title: 'Harbour at dusk' }));
    expect(titled).toMatchObject({ name: 'Harbour at dusk.jpg', alternativeText: 'Harbour at dusk', caption: 'Harbour at dusk' });
    const described = await fileOf(await upload({ title: 'Harbour', description: 'From the pier' }));
    expect(described).toMatchObject({ name: 'Harbour.jpg', alternativeText: 'Harbour', caption: 'From the pier' });
    expect(await fileOf(await upload())).toMatchObject({ name: 'sunset.jpg', alternativeText: null });
    // Base64 has no file name: a title names it, else its id.
    const photo = (await jpeg(300, 200)).toString('base64');
    const base64Titled = await app.http.post('/api/1/upload').type('form').send({ key: app.key, source: photo, title: 'Scanned receipt' });
    expect(await fileOf(base64Titled.body.image)).toMatchObject({ name: 'Scanned receipt.jpg', alternativeText: 'Scanned receipt' });
    const base64Bare = await app.http.post('/api/1/upload').type('form').send({ key: app.key, source: photo });
    expect(await fileOf(base64Bare.body.image)).toMatchObject({ name: `${base64Bare.body.image.id_encoded}.jpg` });
  });

  test('"created by" is the admin who issued the key when it has no owner', async () => {
    const token = await adminToken(app);
    const created = await app.http
      .post('/content-manager/collection-types/plugin::image-api.api-key')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'issued in the panel' });
    expect(created.status).toBe(201);
    const issued = (await app.http.get(`/image-api/api-keys/${created.body.data.documentId}/key`).set('Authorization', `Bearer ${token}`)).body.data.key;
    const res = await app.upload(issued, await jpeg(100, 80), { filename: 'a.jpg' });
    expect(res.status).toBe(200);
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: res.body.image.name }, populate: { createdBy: true } });
    expect(file.createdBy.email).toBe('admin@img.test');
    // A key made by the CLI (no admin) and without an owner: nobody.
    const cliFile = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: (await upload()).name }, populate: { createdBy: true } });
    expect(cliFile.createdBy).toBeNull();
  });

  test('the rows link up as Strapi links them: file in its folder (last), image record to its file and key', async () => {
    const first = await upload();
    const second = await upload();
    const records = await app.strapi.db.query('plugin::image-api.image').findMany({
      where: { name: { $in: [first.name, second.name] } },
      populate: { file: { populate: { folder: true } }, api_key: true },
      orderBy: { id: 'asc' },
    });
    expect(records.map((r: any) => r.file.hash)).toEqual([first.name, second.name]);
    expect(records.map((r: any) => r.file.folder.name)).toEqual(['API uploads', 'API uploads']);
    const keyEntry = await app.strapi.db.query('plugin::image-api.api-key').findOne({ where: { key_prefix: app.key.slice(0, 8) } });
    expect(records.map((r: any) => r.api_key.id)).toEqual([keyEntry.id, keyEntry.id]);
    expect(records[0].documentId).toMatch(/^[a-z0-9]{24}$/);
    // The answer's date is the record's.
    expect(new Date(records[0].createdAt).toISOString().slice(0, 19).replace('T', ' ')).toBe(first.date_gmt);
    // The folder's file order: each new file last.
    const folder = await app.strapi.db.query('plugin::upload.folder').findOne({ where: { name: 'API uploads' }, populate: { files: { select: ['hash'] } } });
    const hashes = folder.files.map((f: any) => f.hash);
    expect(hashes.indexOf(second.name)).toBe(hashes.indexOf(first.name) + 1);
    expect(hashes[hashes.length - 1]).toBe(second.name);
  });

  test('database lifecycles still run for API uploads (subscribers to file and image creation hear of them)', async () => {
    const heard: Array<{ model: string; action: string; hash?: string; id?: number }> = [];
    const unsubscribe = app.strapi.db.lifecycles.subscribe({
      models: ['plugin::upload.file', 'plugin::image-api.image'],
      beforeCreate: (event: any) => void heard.push({ model: event.model.uid, action: 'beforeCreate', hash: event.params.data.hash ?? event.params.data.name }),
      afterCreate: (event: any) => void heard.push({ model: event.model.uid, action: 'afterCreate', id: event.result.id }),
    }) as unknown as () => void;
    let image: any;
    try {
      image = await upload();
    } finally {
      unsubscribe();
    }
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { name: image.name } });
    expect(heard).toEqual([
      { model: 'plugin::upload.file', action: 'beforeCreate', hash: image.name },
      { model: 'plugin::upload.file', action: 'afterCreate', id: file.id },
      { model: 'plugin::image-api.image', action: 'beforeCreate', hash: image.name },
      { model: 'plugin::image-api.image', action: 'afterCreate', id: record.id },
    ]);
  });

  test('an editor deleting the folder does not break uploads: it comes back', async () => {
    const token = await adminToken(app);
    const folder = await app.strapi.db.query('plugin::upload.folder').findOne({ where: { name: 'API uploads' } });
    const res = await app.http.post('/upload/actions/bulk-delete').set({ Authorization: `Bearer ${token}` }).send({ folderIds: [folder.id], fileIds: [] });
    expect(res.status).toBe(200);
    expect(await app.strapi.db.query('plugin::upload.folder').count({ where: { name: 'API uploads' } })).toBe(0);

    const image = await upload();
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name }, populate: { folder: true } });
    expect(file.folder.name).toBe('API uploads');
    expect(file.folder.id).not.toBe(folder.id);
  });

  test('the admin Media Library lists it; deleting it there removes every file and the image record', async () => {
    const image = await upload();
    const token = await adminToken(app);
    const auth = { Authorization: `Bearer ${token}` };
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });

    const listed = await app.http.get('/upload/files').query({ 'filters[id][$eq]': file.id }).set(auth);
    expect(listed.status).toBe(200);
    expect(listed.body.results.map((f: any) => f.hash)).toEqual([image.name]);

    for (const name of [image.filename, image.thumb.filename, image.medium.filename]) {
      expect(fs.existsSync(`${app.uploadsDir}/${name}`)).toBe(true);
    }
    const res = await app.http.delete(`/upload/files/${file.id}`).set(auth);
    expect(res.status).toBe(200);
    for (const name of [image.filename, image.thumb.filename, image.medium.filename]) {
      expect(fs.existsSync(`${app.uploadsDir}/${name}`)).toBe(false);
    }
    expect(await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: image.id_encoded } })).toBeNull();
    expect((await app.http.get(`/image/${image.id_encoded}`)).status).toBe(404);
    expect((await app.http.get(app.pathOf(image.url))).status).toBe(404);
  });

  test("an API image's file cannot be replaced (Strapi's Replace keeps its URL for other bytes and drops the variants); its info stays editable", async () => {
    const image = await upload({ title: 'Kept as uploaded' });
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
    const before = fs.readFileSync(`${app.uploadsDir}/${image.filename}`);
    const other = await jpeg(300, 200);
    for (const role of ['strapi-super-admin', 'strapi-editor'] as const) {
      const auth = { Authorization: `Bearer ${await adminToken(app, `${role}@img.test`, 'Admin-pass-1234', role)}` };
      // The Media Library's Replace, both of its routes.
      const replaced = await app.http.post(`/upload?id=${file.id}`).set(auth).attach('files', other, 'other.jpg');
      expect([role, replaced.status, replaced.body.error?.message]).toEqual([role, 400, "An API image's file cannot be replaced: its URLs never change. Upload the new image instead, and delete this one."]);
      const replacedToo = await app.http.post(`/upload/files/${file.id}/replace`).set(auth).attach('files', other, 'other.jpg');
      expect([role, replacedToo.status]).toEqual([role, 400]);
    }
    expect(fs.readFileSync(`${app.uploadsDir}/${image.filename}`).equals(before)).toBe(true);
    const row = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: file.id } });
    expect([row.hash, row.size, Object.keys(row.formats).sort()]).toEqual([file.hash, file.size, ['medium', 'thumbnail']]);
    // Its info, focal point included, is still the editor's to change.
    const auth = { Authorization: `Bearer ${await adminToken(app, 'strapi-editor@img.test', 'Admin-pass-1234', 'strapi-editor')}` };
    const info = await app.http.post(`/upload?id=${file.id}`).set(auth).field('fileInfo', JSON.stringify({ alternativeText: 'A new text', focalPoint: { x: 20, y: 70 } }));
    expect(info.status).toBe(200);
    expect(await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: file.id }, select: ['alternativeText', 'focalPoint'] })).toMatchObject({ alternativeText: 'A new text', focalPoint: { x: 20, y: 70 } });
    // A Media Library file of its own is replaced as Strapi does.
    const own = await app.http.post('/upload').set(auth).attach('files', await jpeg(120, 80), 'own.jpg');
    expect(own.status).toBe(201);
    const ownId = own.body[0].id;
    expect((await app.http.post(`/upload?id=${ownId}`).set(auth).attach('files', other, 'other.jpg')).status).toBe(200);
  });
});

describe('served originals', () => {
  test('carry their image Content-Type and X-Content-Type-Options: nosniff', async () => {
    const image = await upload();
    const res = await app.http.get(app.pathOf(image.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

test("with the unused decoders blocked, Strapi's own Media Library still takes an SVG (where the app's upload settings allow one)", async () => {
  const { svg } = await import('../../helpers/fixtures');
  const token = await adminToken(app);
  // This app refuses SVG at upload (config/plugins.ts; tests/api/delivery/media-library-files.test.ts).
  const settings = app.strapi.config.get('plugin::upload.security');
  app.strapi.config.set('plugin::upload.security', { allowedTypes: ['image/svg+xml'] });
  try {
    const res = await app.http.post('/upload').set({ Authorization: `Bearer ${token}` }).attach('files', svg, 'logo.svg');
    expect(res.status).toBe(201);
    expect(res.body[0]).toMatchObject({ name: 'logo.svg', mime: 'image/svg+xml' });
  } finally {
    app.strapi.config.set('plugin::upload.security', settings);
  }
});

describe('CORS', () => {
  test('preflight for a browser client sending X-API-Key', async () => {
    const res = await app.http
      .options('/api/1/upload')
      .set('Origin', 'https://editor.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'x-api-key, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(res.headers['access-control-allow-headers']).toMatch(/X-API-Key/i);
  });

  test('answers carry the CORS header', async () => {
    const res = await app.http.post('/api/1/upload').set('Origin', 'https://editor.example').type('form').send({ source: 'x' });
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  test('configured origins: only those are allowed', async () => {
    app.strapi.config.set('plugin::image-api.corsOrigins', ['https://editor.example']);
    try {
      const ok = await app.http.post('/api/1/upload').set('Origin', 'https://editor.example').type('form').send({});
      expect(ok.headers['access-control-allow-origin']).toBe('https://editor.example');
      const other = await app.http.post('/api/1/upload').set('Origin', 'https://evil.example').type('form').send({});
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      app.strapi.config.set('plugin::image-api.corsOrigins', ['*']);
    }
  });
});
