/**
 * A task run every so often in the background (the sweeps): a run already under way is joined, not
 * doubled; a failed run is logged and the next one tries again; stop() waits for a run under way.
 */
export interface Periodic<Args extends unknown[], T> {
  /** Runs the task now, or joins the run under way. */
  run(...args: Args): Promise<T>;
  /** Runs it every `everyMs` until stop(), with `args()` as arguments. */
  start(everyMs: number, args: () => Args): void;
  stop(): Promise<void>;
}

export function periodic<Args extends unknown[], T>(
  task: (...args: Args) => Promise<T>,
  onError: (error: unknown) => void
): Periodic<Args, T> {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<T> | null = null;
  return {
    run(...args) {
      running ??= task(...args).finally(() => {
        running = null;
      });
      return running;
    },
    start(everyMs, args) {
      if (timer) return;
      timer = setInterval(() => {
        this.run(...args()).catch(onError);
      }, everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}
