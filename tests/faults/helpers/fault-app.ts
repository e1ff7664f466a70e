/**
 * The app as a child process for the fault tests (tests/helpers/child-app-process.js): its own
 * public and temp folders, the database and Redis the test gives it, a spare loopback port. It can
 * be stopped (SIGTERM), killed (SIGKILL) and started again on the same folders and database.
 */
import { spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { freePort } from './servers';

const CHILD = path.join(__dirname, '..', '..', 'helpers', 'child-app-process.js');

export interface FaultApp {
  url: string;
  port: number;
  publicDir: string;
  uploadsDir: string;
  tmpDir: string;
  /** Everything the process printed (stdout and stderr), across restarts. */
  output(): string;
  pid(): number;
  /** SIGTERM; resolves with the exit code once the process is gone. */
  stop(): Promise<number | null>;
  /** SIGKILL: no cleanup, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again (same port, folders, database), with extra environment. */
  restart(extraEnv?: Record<string, string>): Promise<void>;
  /** Stops it if running and removes its folders. */
  destroy(): Promise<void>;
}

/**
 * Starts the app with `env` (database, Redis, options). `prepare(uploadsDir)` runs before the first
 * start (e.g. to mount a small tmpfs there).
 */
export async function startFaultApp(env: Record<string, string>, prepare?: (uploadsDir: string) => Promise<void> | void): Promise<FaultApp> {
  const port = await freePort();
  const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-faults-public-'));
  const uploadsDir = path.join(publicDir, 'uploads');
  fs.mkdirSync(uploadsDir);
  const tmpDir = `${publicDir}-tmp`;
  await prepare?.(uploadsDir);
  let output = '';
  let child: ChildProcess | null = null;

  const start = (extraEnv: Record<string, string> = {}) =>
    new Promise<void>((resolve, reject) => {
      const started = spawn(process.execPath, [CHILD], {
        env: {
          ...process.env,
          LOG_LEVEL: 'info',
          HOST: '127.0.0.1',
          PORT: String(port),
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          PUBLIC_DIR: publicDir,
          IMAGE_API_TMP_DIR: tmpDir,
          IMAGE_API_RATE_LIMIT: 'off',
          IMAGE_API_FAILED_AUTH_LIMIT: 'off',
          // Load comes from one address here; attacks.test.ts sets '' for the default share.
          IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '16',
          ...env,
          ...extraEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      let ready = false;
      const from = output.length; // READY of this start, not of an earlier one
      const timer = setTimeout(() => reject(new Error(`the app did not start:\n${output}`)), 90_000);
      started.stdout!.on('data', (chunk) => {
        output += chunk;
        if (!ready && output.indexOf('READY', from) !== -1) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      });
      started.stderr!.on('data', (chunk) => (output += chunk));
      started.once('exit', (code) => {
        if (!ready) {
          clearTimeout(timer);
          reject(new Error(`the app exited with ${code} before it was ready:\n${output}`));
        }
      });
    });

  const exit = (signal: NodeJS.Signals) =>
    new Promise<number | null>((resolve) => {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve(running?.exitCode ?? null);
      running.once('exit', (code) => resolve(code));
      running.kill(signal);
    });

  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    publicDir,
    uploadsDir,
    tmpDir,
    output: () => output,
    pid: () => child?.pid ?? -1,
    stop: () => exit('SIGTERM'),
    kill: async () => {
      await exit('SIGKILL');
    },
    restart: (extraEnv) => start(extraEnv),
    async destroy() {
      await exit('SIGKILL');
      // What the app printed, for a failure's post-mortem.
      fs.writeFileSync(path.join(os.tmpdir(), `imgapi-faults-app-${port}.log`), output);
      fs.rmSync(tmpDir, { recursive: true, force: true });
      try {
        fs.rmSync(publicDir, { recursive: true, force: true });
      } catch {
        // a tmpfs still mounted: the test unmounts it
      }
    },
  };
}
