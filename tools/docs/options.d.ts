export interface DocumentedOption {
  name: string;
  description: string;
  value: unknown;
  variable: string | null;
  list: boolean;
}

export function options(): DocumentedOption[];
/** The files that differ from what the schema says, relative to the app. */
export function stale(): string[];
