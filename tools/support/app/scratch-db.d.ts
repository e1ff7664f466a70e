export type TestDb = 'sqlite' | 'postgres' | 'mysql';

export interface ScratchDb {
  client: TestDb;
  /** The database's name (SQLite: its file). */
  name: string;
  /** The app's DATABASE_* variables for it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A booted database that copies are made from (booted-template.js). */
export type Template =
  | { client: 'sqlite'; file: string }
  | { client: 'postgres'; name: string }
  | { client: 'mysql'; name: string; statements: string[] };

export function testDb(): TestDb;
export function createScratchDb(client?: TestDb, options?: { from?: Template | null }): Promise<ScratchDb>;
export function templateOf(db: ScratchDb): Promise<Template>;
