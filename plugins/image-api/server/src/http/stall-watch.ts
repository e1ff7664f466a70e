/**
 * Watches a request body as it arrives: a body that stalls (fewer than `minBytesPerSecond` × the
 * window's seconds in any window of `windowMs`, so nothing at all for that long, or a trickle) is
 * a client holding a connection and a request slot for nothing; so is one that has not sent it all by
 * its deadline. Node's own request timeout only cuts it after minutes, and answers outside the API's
 * error shape.
 */
import type { IncomingMessage } from 'http';

export interface StallLimits {
  /** Length of a window, ms: a body with no byte for this long is stalled. */
  windowMs: number;
  /** Bytes per second a body must average over each window; 0 checks for silence only. */
  minBytesPerSecond: number;
  /**
   * The whole body must have arrived this long (ms) after the watch began, however steadily it
   * trickles: a client above the rate floor (1,500 bytes/s) could otherwise hold a slot for hours.
   */
  deadlineMs?: number;
}

export interface StallWatch {
  /** Settles (rejects) when the body stalls or passes its deadline; never settles otherwise. */
  stalled: Promise<never>;
  stop(): void;
}

/** `stallError` for a body that stalls, `lateError` for one that passes its deadline. */
export function watchBody(
  req: IncomingMessage,
  { windowMs, minBytesPerSecond, deadlineMs }: StallLimits,
  stallError: () => Error,
  lateError: () => Error = stallError
): StallWatch {
  const floor = Math.max(1, Math.floor((minBytesPerSecond * windowMs) / 1000));
  // The socket's byte count, not a 'data' listener: a listener would change how the body flows to
  // its parser.
  const received = () => req.socket?.bytesRead ?? 0;
  let atLastCheck = received();
  let timer: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    clearTimeout(deadline);
  };
  const stalled = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const now = received();
      if (now - atLastCheck < floor) {
        stop();
        reject(stallError());
      }
      atLastCheck = now;
    }, windowMs);
    if (deadlineMs !== undefined) {
      deadline = setTimeout(() => {
        stop();
        reject(lateError());
      }, deadlineMs);
    }
  });
  // Nobody may be listening when the body ends first.
  stalled.catch(() => undefined);
  return { stalled, stop };
}
