/**
 * Boots the real Strapi app in-process (compiled by global-setup, apart from dist/) on a scratch database with its
 * own public folder, and tears everything down afterwards. The database is a copy of one the app has
 * booted on once (tools/support/app/booted-template.js): the schema and the first boot's rows are in place.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import request from 'supertest';
import type { Core } from '@strapi/strapi';
import { checkAnswers } from './openapi-check';
import { createScratchDb, testDb, type ScratchDb } from '../../tools/support/app/scratch-db';
import { bootedTemplate } from '../../tools/support/app/booted-template';
import { appDistDir } from '../../tools/support/app/paths';

export const APP_DIR = path.join(__dirname, '..', '..');
export const PUBLIC_URL = 'http://img.test:1337';

export interface TestApp {
  strapi: Core.Strapi;
  http: ReturnType<typeof request>;
  /** The public folder; uploads sit in `<publicDir>/uploads`. */
  publicDir: string;
  uploadsDir: string;
  /** The plugin's temp root (per-request folders). */
  tmpDir: string;
  db: ScratchDb;
  /** Path of an absolute URL the API returned, for requests through supertest. */
  pathOf(url: string): string;
  /** Issues an API key. */
  createKey(name?: string): Promise<string>;
  /** A multipart upload of `bytes` to `/api/1/upload` (see UploadOptions), as supertest's request. */
  upload(key: string, bytes: Buffer, options?: UploadOptions): request.Test;
  stop(): Promise<void>;
}

export interface UploadOptions {
  /** The file's name (`a.png` unless given). */
  filename?: string;
  /** Text parts, sent before the file. */
  fields?: Record<string, string | number>;
  /** The query string (`format=txt`...). */
  query?: string;
  /** Where the key goes: `X-API-Key` (the default) or a `key` field, as form clients send it. */
  keyIn?: 'header' | 'field';
  headers?: Record<string, string>;
}

/** Where the test environment holds the app's logs (tests/helpers/quiet-environment.js), if it does. */
const held = (globalThis as { __heldLogs?: string[] }).__heldLogs;

/**
 * Hands the app's log lines to the test environment, which prints them only when a test fails;
 * Strapi's logger would write them to stdout as they come, stacks of deliberate faults and all.
 */
function holdLogs(strapi: Core.Strapi): void {
  if (!held) return;
  const MESSAGE = Symbol.for('message');
  for (const transport of (strapi.log as unknown as { transports: Array<{ log?: unknown }> }).transports) {
    transport.log = (info: Record<symbol, string>, done: () => void) => {
      held.push(info[MESSAGE]);
      done();
    };
  }
}

export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  // A copy of the database the run's app booted on once (tests/helpers/global-setup.js), when it made one.
  const db = await createScratchDb(testDb(), { from: bootedTemplate() });
  const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-public-'));
  const uploadsDir = path.join(publicDir, 'uploads');
  fs.mkdirSync(uploadsDir);
  const tmpDir = path.join(publicDir, '..', `${path.basename(publicDir)}-tmp`);

  const saved = { ...process.env };
  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    PUBLIC_URL,
    PUBLIC_DIR: publicDir,
    IMAGE_API_TMP_DIR: tmpDir,
    // Suites upload far more than a real client; the rate-limit tests turn limits on.
    IMAGE_API_RATE_LIMIT: 'off',
    IMAGE_API_FAILED_AUTH_LIMIT: 'off',
    // Every client of a suite is on one address: no share of its own, the process's limits alone
    // (suites raise them); the admission tests set a share.
    IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '1000',
    IMAGE_API_MAX_RENDERS_PER_ADDRESS: '1000',
    ...db.env,
    ...env,
  });

  const { createStrapi } = await import('@strapi/strapi');
  let strapi: Core.Strapi;
  try {
    strapi = createStrapi({ appDir: APP_DIR, distDir: appDistDir() });
    holdLogs(strapi);
    await strapi.load();
    strapi.server.mount();
  } catch (error) {
    process.env = saved;
    await db.drop();
    fs.rmSync(publicDir, { recursive: true, force: true });
    throw error;
  }

  // Every answer from here on is checked against the document the app serves.
  const document = await request(strapi.server.httpServer).get('/api/1/openapi.json');
  if (document.status !== 200) throw new Error(`GET /api/1/openapi.json answered ${document.status}`);
  checkAnswers(strapi.server.httpServer, document.body);

  let keys = 0;
  return {
    strapi,
    http: request(strapi.server.httpServer),
    publicDir,
    uploadsDir,
    tmpDir,
    db,
    pathOf: (url: string) => new URL(url).pathname,
    async createKey(name = `test key ${++keys}`) {
      const { key } = await strapi.plugin('image-api').service('api-keys').create({ name, description: 'tests' });
      return key;
    },
    upload(key, bytes, { filename = 'a.png', fields = {}, query, keyIn = 'header', headers = {} } = {}) {
      let req = request(strapi.server.httpServer).post(`/api/1/upload${query ? `?${query}` : ''}`);
      if (keyIn === 'header') req = req.set('X-API-Key', key);
      for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
      if (keyIn === 'field') req = req.field('key', key);
      for (const [name, value] of Object.entries(fields)) req = req.field(name, String(value));
      return req.attach('source', bytes, filename);
    },
    async stop() {
      await strapi.destroy();
      process.env = saved;
      await db.drop();
      fs.rmSync(publicDir, { recursive: true, force: true });
      fs.rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

/** The app of a test file with the key its tests upload with. */
export interface SuiteApp extends TestApp {
  key: string;
}

/**
 * The app for the test file that calls it: booted (with one key) before its tests, stopped after.
 * The object answers for the app once it has booted, so tests use it directly.
 */
export function useApp(env: Record<string, string> = {}): SuiteApp {
  let started: SuiteApp | undefined;
  beforeAll(async () => {
    const app = await startApp(env);
    started = Object.assign(app, { key: await app.createKey() });
  });
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as SuiteApp, {
    get(_target, name) {
      if (!started) throw new Error(`the app is not booted yet (app.${String(name)} outside a test or hook)`);
      return started[name as keyof SuiteApp];
    },
    set(_target, name) {
      throw new Error(`useApp(): app.${String(name)} is read-only (make another key with app.createKey())`);
    },
  });
}
