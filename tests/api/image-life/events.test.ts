/**
 * Media events and webhooks (docs/events.md): API uploads and every deletion of an API
 * image reach Strapi's webhooks as `media.create` / `media.delete`, and as the plugin's own
 * `image-api.image.upload`, `.delete` and `.expire`, after their transaction commits, without holding
 * the answer. A real webhook (Settings > Webhooks, through the admin API) posts to a loopback receiver:
 * Strapi refuses loopback webhook URLs only in production mode, and the suites run in test mode.
 */
import { startApp, type TestApp } from '../../helpers/app';
import { adminToken } from '../../helpers/admin';
import { png } from '../../helpers/fixtures';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../helpers/webhook-receiver';

const IMAGE_UID = 'plugin::image-api.image';
const EVENTS = ['media.create', 'media.delete', 'image-api.image.upload', 'image-api.image.delete', 'image-api.image.expire'];

let app: TestApp;
let receiver: WebhookReceiver;
let auth: { Authorization: string };
let key: string;
let picture: Buffer;

beforeAll(async () => {
  app = await startApp();
  receiver = await startWebhookReceiver();
  auth = { Authorization: `Bearer ${await adminToken(app)}` };
  key = await app.createKey('events key');
  picture = await png(120, 90);
  const res = await app.http.post('/admin/webhooks').set(auth).send({ name: 'receiver', url: receiver.url, headers: {}, events: EVENTS });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

const of = (event: string, name: string) => (hook: ReceivedWebhook) =>
  hook.event === event && (hook.body.media?.hash === name || hook.body.image?.name === name);
async function upload(filename = 'a.png') {
  const res = await app.upload(key, picture, { filename });
  expect(res.status).toBe(200);
  return res.body.image;
}
/** Waits for the deletion's webhooks of `image`, then checks there was one of each, no more. */
async function deletionHooks(image: { name: string }, pluginEvent: string, mediaDelete = 1) {
  const [plugin] = await receiver.waitFor(of(pluginEvent, image.name));
  if (mediaDelete) await receiver.waitFor(of('media.delete', image.name));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(receiver.received.filter(of('media.delete', image.name))).toHaveLength(mediaDelete);
  expect(receiver.received.filter(of(pluginEvent, image.name))).toHaveLength(1);
  return plugin;
}

test('the plugin registers its events with the webhook store: a webhook may subscribe to them, not to others', async () => {
  const store = app.strapi.get('webhookStore');
  expect(store.listAllowedEvents()).toEqual(expect.arrayContaining(['IMAGE_API_IMAGE_UPLOAD', 'IMAGE_API_IMAGE_DELETE', 'IMAGE_API_IMAGE_EXPIRE']));
  const bogus = await app.http.post('/admin/webhooks').set(auth).send({ name: 'bogus', url: receiver.url, headers: {}, events: ['image-api.image.bogus'] });
  expect(bogus.status).toBe(400);
  expect(bogus.text).toContain('Webhook event image-api.image.bogus is not supported');
});

test('an upload: media.create with its file entry as Strapi sends it, then image-api.image.upload with the image JSON and the key name, never the key', async () => {
  const image = await upload('holiday.png');
  const [create] = await receiver.waitFor(of('media.create', image.name));
  const [uploaded] = await receiver.waitFor(of('image-api.image.upload', image.name));

  expect(create.headers['content-type']).toBe('application/json');
  expect(create.body).toEqual({ event: 'media.create', createdAt: expect.any(String), media: expect.any(Object) });
  const media = create.body.media;
  const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
  expect(media).toMatchObject({
    id: file.id,
    documentId: file.documentId,
    name: file.name,
    hash: image.name,
    ext: '.png',
    mime: 'image/png',
    width: 120,
    height: 90,
    url: file.url,
    provider: 'local',
    formats: { thumbnail: expect.objectContaining({ hash: `${image.name}.th` }), medium: expect.objectContaining({ hash: `${image.name}.md` }) },
  });

  expect(uploaded.body).toEqual({ event: 'image-api.image.upload', createdAt: expect.any(String), image: { ...image, delete_url: null }, key_name: 'events key' });
  for (const hook of [create, uploaded]) {
    expect(hook.raw).not.toContain(key);
    expect(hook.raw).not.toContain(image.delete_url);
  }
});

test('each way of deleting an API image emits media.delete and image-api.image.delete, naming the way', async () => {
  const viaLink = await upload();
  expect((await app.http.delete(app.pathOf(viaLink.delete_url)).set('Accept', 'application/json')).status).toBe(200);
  const viaApi = await upload();
  expect((await app.http.post('/api/1/delete').type('form').send({ key, id: viaApi.id_encoded })).status).toBe(200);
  const viaPage = await upload();
  expect((await app.http.delete(`/image-api/images/${viaPage.id_encoded}`).set(auth)).status).toBe(204);
  const viaCm = await upload();
  const record = await app.strapi.db.query(IMAGE_UID).findOne({ where: { id_encoded: viaCm.id_encoded } });
  expect((await app.http.delete(`/content-manager/collection-types/${IMAGE_UID}/${record.documentId}`).set(auth)).status).toBe(200);

  for (const [image, way] of [[viaLink, 'delete-link'], [viaApi, 'api'], [viaPage, 'image-api-page'], [viaCm, 'content-manager']] as const) {
    const deleted = await deletionHooks(image, 'image-api.image.delete');
    expect(deleted.body).toEqual({
      event: 'image-api.image.delete',
      createdAt: expect.any(String),
      image: { ...image, delete_url: null, how_long_ago: expect.any(String) },
      key_name: 'events key',
      deleted_by: way,
    });
    const [mediaDelete] = receiver.received.filter(of('media.delete', image.name));
    expect(mediaDelete.body.media).toMatchObject({ hash: image.name, ext: '.png', mime: 'image/png' });
  }
});

test('deleting the file in the Media Library: Strapi emits media.delete once, the plugin image-api.image.delete', async () => {
  const image = await upload();
  const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { hash: image.name } });
  expect((await app.http.delete(`/upload/files/${file.id}`).set(auth)).status).toBe(200);
  const deleted = await deletionHooks(image, 'image-api.image.delete');
  expect(deleted.body.deleted_by).toBe('media-library');
});

test('an expired image swept: media.delete and image-api.image.expire, with what editors changed since the upload', async () => {
  const image = await upload();
  await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ expires_at: new Date(Date.now() - 1000), title: 'Renamed' });
  expect(await app.strapi.plugin('image-api').service('expiry-sweep').run()).toBeGreaterThanOrEqual(1);
  const expired = await deletionHooks(image, 'image-api.image.expire');
  expect(expired.body.image).toMatchObject({ id_encoded: image.id_encoded, title: 'Renamed', delete_url: null, expiration_date_gmt: expect.any(String) });
  expect(expired.body.key_name).toBe('events key');
  expect(receiver.received.filter(of('image-api.image.delete', image.name))).toHaveLength(0);
});

test('an upload whose transaction fails emits nothing', async () => {
  const quotas = app.strapi.plugin('image-api').service('quotas');
  const charge = jest.spyOn(quotas, 'charge').mockRejectedValueOnce(new Error('injected failure'));
  try {
    const res = await app.upload(key, picture, { filename: 'rolled-back.png' });
    expect(res.status).toBe(500);
  } finally {
    charge.mockRestore();
  }
  // A later upload's events arrive; none came for the failed one.
  const later = await upload('later.png');
  await receiver.waitFor(of('image-api.image.upload', later.name));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(receiver.received.filter((hook) => hook.raw.includes('rolled-back'))).toEqual([]);
});

test('a listener that never returns does not hold the upload answer', async () => {
  let heard = 0;
  const off = app.strapi.eventHub.on('image-api.image.upload', () => {
    heard += 1;
    return new Promise(() => undefined);
  });
  try {
    const started = Date.now();
    const res = await app.upload(key, picture);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    for (let i = 0; i < 100 && heard === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toBe(1);
  } finally {
    off();
  }
});

test('an image recorded before answers were kept is described from its file entry', async () => {
  const image = await upload('older.png');
  await app.strapi.db.connection('image_api_images').where('id_encoded', image.id_encoded).update({ answer: null });
  expect((await app.http.post('/api/1/delete').type('form').send({ key, id: image.id_encoded })).status).toBe(200);
  const deleted = await deletionHooks(image, 'image-api.image.delete');
  const { md5, bits, channels, thumb, medium, how_long_ago, size, ...rest } = image;
  // The file entry keeps the original's size in kilobytes, to two decimals.
  expect(Math.abs(deleted.body.image.size - size)).toBeLessThanOrEqual(5);
  expect(deleted.body.image).toEqual({
    ...rest,
    size: deleted.body.image.size,
    delete_url: null,
    md5: '',
    bits: 8,
    channels: null,
    how_long_ago: expect.any(String),
    thumb: { ...thumb, bits: 8, channels: null },
    medium: { ...medium, bits: 8, channels: null },
  });
});
