/** Another instance of the app, in a process of its own (tools/support/app/app-process.js), for a test. */
import { startAppProcess } from '../../tools/support/app/app-process';

export interface ChildApp {
  url: string;
  /** Everything the process has printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: no cleanup, no shutdown hooks, as in a crash. */
  kill(): Promise<void>;
}

export async function startChildApp(env: Record<string, string | undefined>): Promise<ChildApp> {
  const app = await startAppProcess({
    // The suite's clients are all on one address, which has no share of its own (the process's
    // limits alone) unless the caller sets one.
    env: { IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '1000', IMAGE_API_MAX_RENDERS_PER_ADDRESS: '1000', ...env },
    startTimeoutMs: 60_000,
  });
  return {
    url: app.url,
    output: app.output,
    kill: app.kill,
    stop: async () => {
      await app.stop();
    },
  };
}
