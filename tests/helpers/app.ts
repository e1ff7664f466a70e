/**
 * Boots the real Strapi app in-process (compiled by global-setup) on a scratch database with its
 * own public folder, and tears everything down afterwards.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import request from 'supertest';
import type { Core } from '@strapi/strapi';
import { checkAnswers } from './openapi-check';
import { createScratchDb, type ScratchDb } from './scratch-db';

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
  stop(): Promise<void>;
}

export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await createScratchDb();
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
    ...db.env,
    ...env,
  });

  const { createStrapi } = await import('@strapi/strapi');
  let strapi: Core.Strapi;
  try {
    strapi = await createStrapi({ appDir: APP_DIR, distDir: path.join(APP_DIR, 'dist') }).load();
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
    async stop() {
      await strapi.destroy();
      process.env = saved;
      await db.drop();
      fs.rmSync(publicDir, { recursive: true, force: true });
      fs.rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}
