import type { Template, TestDb } from './scratch-db';

export function makeBootedTemplate(client?: TestDb, env?: Record<string, string>): Promise<{ drop(): Promise<void> }>;
export function bootedTemplate(): Template | null;
