export interface AppProcess<Found = unknown> {
  url: string;
  port: number;
  /** What `ready` found at the first start. */
  found: Found;
  /** Everything the process printed (stdout, and stderr unless inherited), across restarts. */
  output(): string;
  pid(): number;
  /** SIGTERM; resolves with the exit code once the process is gone. */
  stop(): Promise<number | null>;
  /** SIGKILL, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port, with extra environment. */
  restart(extraEnv?: Record<string, string>): Promise<Found>;
  /** An IPC message, and the next one back. */
  send(message: unknown): Promise<any>;
}

export function startAppProcess<Found = boolean>(options?: {
  env?: Record<string, string | undefined>;
  entry?: string;
  nodeFlags?: string[];
  ipc?: boolean;
  ready?: (output: string) => Found | null | false | undefined;
  startTimeoutMs?: number;
  onStdout?: (chunk: Buffer) => void;
  inheritStderr?: boolean;
}): Promise<AppProcess<Found>>;
