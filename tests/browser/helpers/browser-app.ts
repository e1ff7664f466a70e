/**
 * The browser tests' setup: the app as a child process on a scratch SQLite database with a public
 * folder of its own, and Debian's Chromium driven by Playwright. Screenshots go to SHOTS.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { chromium, type Browser } from 'playwright-core';
import { startChildApp, type ChildApp } from '../../helpers/child-app';
import { createScratchDb } from '../../../tools/support/app/scratch-db';

export const SHOTS = path.join(__dirname, '..', '..', '..', 'docs', 'screenshots');

export interface BrowserApp {
  app: ChildApp;
  browser: Browser;
  /** The app's public folder; its uploads sit in `<publicDir>/uploads`. */
  publicDir: string;
  stop(): Promise<void>;
}

export async function startBrowserApp(env: Record<string, string> = {}): Promise<BrowserApp> {
  const db = await createScratchDb('sqlite');
  const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-browser-'));
  fs.mkdirSync(path.join(publicDir, 'uploads'));
  const removeFolders = async () => {
    await db.drop();
    fs.rmSync(publicDir, { recursive: true, force: true });
  };
  const app = await startChildApp({ ...db.env, PUBLIC_DIR: publicDir, LOG_LEVEL: 'warn', ...env }).catch(async (error) => {
    await removeFolders();
    throw error;
  });
  const browser = await chromium
    .launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    })
    .catch(async (error) => {
      // No browser (chromium not installed): nothing of the app may outlive the test.
      await app.stop();
      await removeFolders();
      throw error;
    });
  return {
    app,
    browser,
    publicDir,
    async stop() {
      await browser.close();
      await app.stop();
      await removeFolders();
    },
  };
}
