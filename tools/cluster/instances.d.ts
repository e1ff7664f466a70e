export interface Instance {
  index: number;
  port: number;
  pid: number;
  log: string;
  url: string;
}
export const APP_DIR: string;
export function sharedEnvironment(options: Record<string, unknown>): Record<string, string>;
/** Starts instance `index` with the shared environment; `extraEnv` comes last. */
export function startInstance(dir: string, index: number, shared: Record<string, string>, extraEnv: Record<string, string>): Promise<Instance>;
export function waitUntilHealthy(instance: Instance, timeoutMs?: number): Promise<void>;
