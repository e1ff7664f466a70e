import type { OwnServer } from '../own-server';

export function startRedis(options?: { port?: number; dir?: string; onSpawn?: (pid: number) => void }): Promise<OwnServer & { url: string }>;
