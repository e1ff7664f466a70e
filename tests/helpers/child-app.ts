/** Starts tests/helpers/child-app-process.js on a free loopback port and stops it. */
import { spawn, type ChildProcess } from 'child_process';
import net from 'net';
import path from 'path';

export interface ChildApp {
  url: string;
  /** Everything the process has printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: no cleanup, no shutdown hooks, as in a crash. */
  kill(): Promise<void>;
}

/** A port nothing listens on now, on loopback. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

export async function startChildApp(env: Record<string, string | undefined>): Promise<ChildApp> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'child-app-process.js')], {
    // PUBLIC_URL follows the port unless the caller set one; the suite's clients are all on one
    // address, which has no share of its own (the process's limits alone) unless the caller sets one.
    env: { ...process.env, PUBLIC_URL: `http://127.0.0.1:${port}`, IMAGE_API_MAX_REQUESTS_PER_ADDRESS: '1000', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child app did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child app exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    kill: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
