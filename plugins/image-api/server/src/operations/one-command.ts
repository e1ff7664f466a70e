/**
 * A process that boots the app to run one command and exit (the key CLI, bin/keys.js): the plugin
 * starts none of a serving instance's background work there (bootstrap.ts). The mark is on the
 * process itself, never in its environment: an environment is inherited and copied, and a server
 * that found the mark there would run no sweeps, its expired images never deleted.
 */
const MARK = Symbol.for('strapi-plugin-image-api.one-command');

type Marked = typeof globalThis & { [MARK]?: boolean };

/** Marks this process as one command's (before it boots the app). */
export function markOneCommand(): void {
  (globalThis as Marked)[MARK] = true;
}

/** Whether this process runs one command and exits. */
export const isOneCommand = (): boolean => (globalThis as Marked)[MARK] === true;
