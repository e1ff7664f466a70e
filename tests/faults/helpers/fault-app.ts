/**
 * The app as a child process for the fault tests (tools/support/app/app-process.js): its own public and
 * temp folders, the database and Redis the test gives it, a spare loopback port. It can be stopped
 * (SIGTERM), killed (SIGKILL) and started again on the same folders and database.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { startAppProcess } from '../../../tools/support/app/app-process';

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
  const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgapi-faults-public-'));
  const uploadsDir = path.join(publicDir, 'uploads');
  fs.mkdirSync(uploadsDir);
  const tmpDir = `${publicDir}-tmp`;
  await prepare?.(uploadsDir);
  const app = await startAppProcess({
    env: {
      LOG_LEVEL: 'info',
      PUBLIC_DIR: publicDir,
      IMAGE_API_TMP_DIR: tmpDir,
      IMAGE_API_RATE_LIMIT: 'off',
      IMAGE_API_FAILED_AUTH_LIMIT: 'off',
      // Load comes from one address here, renders as many at once as uploads; attacks.test.ts and
      // transformations.test.ts set '' for the defaults.
      IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '16',
      IMAGE_API_MAX_RENDERS_IN_FLIGHT: '16',
      IMAGE_API_MAX_RENDERS_PER_ADDRESS: '16',
      ...env,
    },
  });
  return {
    url: app.url,
    port: app.port,
    publicDir,
    uploadsDir,
    tmpDir,
    output: app.output,
    pid: app.pid,
    stop: app.stop,
    kill: app.kill,
    restart: async (extraEnv) => {
      await app.restart(extraEnv);
    },
    async destroy() {
      await app.kill();
      // What the app printed, for a failure's post-mortem.
      fs.writeFileSync(path.join(os.tmpdir(), `imgapi-faults-app-${app.port}.log`), app.output());
      fs.rmSync(tmpDir, { recursive: true, force: true });
      try {
        fs.rmSync(publicDir, { recursive: true, force: true });
      } catch {
        // a tmpfs still mounted: the test unmounts it
      }
    },
  };
}
