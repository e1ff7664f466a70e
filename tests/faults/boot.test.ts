/**
 * Two instances booting at once on an empty PostgreSQL database both come up: the plugin serializes
 * the schema setup (operations/boot-lock.ts). Without it, Strapi's own setup crashed one or
 * both in 4 trials of 4 ("relation strapi_migrations already exists").
 */
import { Client } from 'pg';
import { jpeg } from '../helpers/fixtures';
import { startFaultApp, type FaultApp } from './helpers/fault-app';
import { uploadFile } from './helpers/load';
import { startPostgres } from '../../tools/support/servers/postgres';

const KEY = 'img_faults_boot_0123456789abcdef0123';
let pg: Awaited<ReturnType<typeof startPostgres>>;
const apps: FaultApp[] = [];

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const app of apps) await app.destroy();
  await pg?.destroy();
});

test.each([1, 2, 3])('trial %i: two instances at once on an empty database both boot, and both serve', async (trial) => {
  const database = `boot_${trial}`;
  const admin = new Client({ host: '127.0.0.1', port: pg.port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const env = { ...pg.env, DATABASE_NAME: database, IMAGE_API_BOOTSTRAP_KEY: KEY };
  const booted = await Promise.allSettled([startFaultApp(env), startFaultApp(env)]);
  for (const result of booted) if (result.status === 'fulfilled') apps.push(result.value);
  expect(booted.map((result) => (result.status === 'rejected' ? String(result.reason).slice(0, 500) : 'up'))).toEqual(['up', 'up']);
  const image = await jpeg(64, 48);
  for (const app of apps.slice(-2)) expect((await uploadFile(app.url, KEY, image)).status).toBe(200);
  // One bootstrap key, one upload folder, whichever instance made them.
  const check = new Client({ host: '127.0.0.1', port: pg.port, user: 'postgres', database });
  await check.connect();
  try {
    expect(Number((await check.query('select count(*) as n from image_api_keys')).rows[0].n)).toBe(1);
    expect(Number((await check.query("select count(*) as n from upload_folders where name = 'API uploads'")).rows[0].n)).toBe(1);
  } finally {
    await check.end();
  }
  for (const app of apps.splice(-2)) await app.destroy();
}, 180_000);
