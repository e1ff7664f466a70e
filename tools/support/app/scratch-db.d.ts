export type TestDb = 'sqlite' | 'postgres' | 'mysql';

export interface ScratchDb {
  client: TestDb;
  /** The app's DATABASE_* variables for it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export function testDb(): TestDb;
export function createScratchDb(client?: TestDb): Promise<ScratchDb>;
