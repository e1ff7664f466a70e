import type { OwnServer } from '../own-server';

export function postgresBin(): string | null;
export function startPostgres(options?: {
  dir?: string;
  database?: string;
  maxConnections?: number;
  durable?: boolean;
  onSpawn?: (pid: number) => void;
}): Promise<OwnServer & { database: string; env: Record<string, string> }>;
