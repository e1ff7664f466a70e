/**
 * A task run every so often in the background (the sweeps): a run already under way is joined, not
 * doubled; a failed run is logged and the next one tries again; stop() waits for a run under way.
 *
 * Not Strapi's `strapi.cron` (@strapi/core's services/cron.js, on croner), which cannot do what the
 * sweeps need:
 * - Its rules are cron patterns or dates: `expirySweepSeconds` and `debrisSweepSeconds` are any
 *   number of seconds (90 has no pattern; `*\/7` fires 4 s after :56), and croner's own `interval`
 *   option is not passed through by Strapi.
 * - It does not join a run under way: croner's `protect` is not passed through either, and the
 *   sweeps are also run on demand (bootstrap's debris sweep, tests) while a timed run may be going.
 * - Its destroy() stops the timers without waiting for a run: the plugin's destroy must wait for a
 *   sweep before the database closes under it (stop()).
 * - A failure is logged as "Cron job ... failed" at error level, where each sweep says its own words.
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
