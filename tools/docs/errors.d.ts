export interface DocumentedError {
  /** The factory's name, `errors.<name>(...)`. */
  name: string;
  when: string;
  status: number;
  code: number;
  message: string;
  headers: Record<string, string>;
}

/** Every condition of every row of the error table, with its example. */
export function conditions(): DocumentedError[];
/** The files that differ from what the error table says, relative to the app. */
export function stale(): string[];
