/**
 * `width` resizes the stored original before the variants are made (aspect kept, never enlarged,
 * animations keep their frames); `title`, or its alias `name`, keeps 100 characters and `description`
 * 5,000, in both dialects (docs/api.md, "Parameters").
 */
import sharp from 'sharp';
import { useApp } from '../../helpers/app';
import { animated, jpeg, png } from '../../helpers/fixtures';
import { expectServedFiles, expectUploadJson } from '../../helpers/image-json';

const app = useApp();

const upload = (bytes: Buffer, fields: Record<string, string | number>, filename = 'a.png') => app.upload(app.key, bytes, { fields, filename });

describe('width', () => {
  test('a narrower width resizes the original, aspect kept; the variants follow from it', async () => {
    const res = await upload(await jpeg(800, 600), { width: 320 }, 'photo.jpg');
    const image = expectUploadJson(res.body, { extension: 'jpg', mime: 'image/jpeg' });
    expect([image.width, image.height]).toEqual([320, 240]);
    expect([image.medium.width, image.medium.height]).toEqual([320, 240]);
    expect([image.thumb.width, image.thumb.height]).toEqual([160, 160]);
    await expectServedFiles(app, image);
  });

  test('a wider width changes nothing: the original is stored byte for byte', async () => {
    const original = await png(300, 200);
    const image = (await upload(original, { width: 2000 })).body.image;
    expect([image.width, image.height]).toEqual([300, 200]);
    const stored = await expectServedFiles(app, image);
    expect(Buffer.compare(stored, original)).toBe(0);
  });

  test('an animation keeps every frame, each resized', async () => {
    const image = (await upload(await animated(400, 200, 4), { width: 100 }, 'anim.gif')).body.image;
    expect([image.width, image.height, image.extension]).toEqual([100, 50, 'gif']);
    const stored = await expectServedFiles(app, image);
    const meta = await sharp(stored).metadata();
    expect([meta.pages, meta.width, meta.pageHeight ?? meta.height]).toEqual([4, 100, 50]);
  });

  test('a JSON body may give it as a number', async () => {
    const bytes = await png(400, 100);
    const res = await app.http.post('/api/1/upload').set('X-API-Key', app.key).send({ source: bytes.toString('base64'), width: 200 });
    expect([res.body.image.width, res.body.image.height]).toEqual([200, 50]);
  });

  test.each(['0', '-20', '1.5', 'wide', '100px'])('width=%s: 400/170, nothing stored', async (width) => {
    const before = await app.strapi.db.query('plugin::image-api.image').count();
    const res = await upload(await png(50, 50), { width });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, error: { message: 'Invalid width: width is the number of pixels to resize the stored image to (a whole number from 1; its height follows)', code: 170 }, status_txt: 'Bad Request' });
    expect(await app.strapi.db.query('plugin::image-api.image').count()).toBe(before);
  });
});

describe('title', () => {
  test('is kept to 100 characters, and `name` is its alias', async () => {
    const long = `${'Sunset over the sea. '.repeat(10)}`;
    const viaTitle = (await upload(await png(20, 20), { title: long })).body.image;
    expect(viaTitle.title).toBe(long.slice(0, 100));
    const viaName = (await upload(await png(20, 20), { name: 'Harbour at night' })).body.image;
    expect(viaName.title).toBe('Harbour at night');
    const both = (await upload(await png(20, 20), { name: 'the alias', title: 'the title' })).body.image;
    expect(both.title).toBe('the title');
    const viewer = await app.http.get(app.pathOf(viaName.url_viewer));
    expect(viewer.text).toContain('<title>Harbour at night</title>');
  });
});

describe('description', () => {
  // 8 MB of description once made every view of the viewer page 16 MB (issue 23, item 9).
  const huge = 'A very long story. '.repeat(420_000);

  test('keeps 5,000 characters, in the answer, the record and the viewer page (multipart, /api/1/upload)', async () => {
    const image = (await upload(await png(20, 20), { description: huge })).body.image;
    expect(image.description).toBe(huge.slice(0, 5000));
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: image.id_encoded } });
    expect(record.description).toBe(huge.slice(0, 5000));
    const viewer = await app.http.get(app.pathOf(image.url_viewer));
    expect(viewer.status).toBe(200);
    expect(viewer.text.length).toBeLessThan(20_000);
  });

  test('keeps 5,000 characters in the imgbb dialect too (urlencoded, /1/upload); whole characters', async () => {
    const emoji = '\u{1F408}'.repeat(6000);
    const res = await app.http
      .post('/1/upload')
      .query({ key: app.key })
      .type('form')
      .send({ image: (await png(20, 20)).toString('base64'), description: emoji });
    expect(res.status).toBe(200);
    const record = await app.strapi.db.query('plugin::image-api.image').findOne({ where: { id_encoded: res.body.data.id } });
    expect(Array.from(record.description)).toHaveLength(5000);
    expect(record.description).toBe('\u{1F408}'.repeat(5000));
  });
});
