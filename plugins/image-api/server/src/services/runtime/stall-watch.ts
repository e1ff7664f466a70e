/**
 * Watches a request body as it arrives: a body that stalls (fewer than `minBytesPerSecond` × the
 * window's seconds in any window of `windowMs`, so nothing at all for that long, or a trickle) is
 * a client holding a connection and a request slot for nothing. Node's own request timeout only
 * cuts it after minutes, and answers outside the API's error shape.
 */
import type { IncomingMessage } from 'http';

export interface StallLimits {
  /** Length of a window, ms: a body with no byte for this long is stalled. */
  windowMs: number;
  /** Bytes per second a body must average over each window; 0 checks for silence only. */
  minBytesPerSecond: number;
}

export interface StallWatch {
  /** Settles (rejects) when the body stalls; never settles otherwise. */
  stalled: Promise<never>;
  stop(): void;
}

export function watchBody(req: IncomingMessage, { windowMs, minBytesPerSecond }: StallLimits, stallError: () => Error): StallWatch {
  const floor = Math.max(1, Math.floor((minBytesPerSecond * windowMs) / 1000));
  // The socket's byte count, not a 'data' listener: a listener would change how the body flows to
  // its parser.
  const received = () => req.socket?.bytesRead ?? 0;
  let atLastCheck = received();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const now = received();
      if (now - atLastCheck < floor) {
        clearInterval(timer);
        reject(stallError());
      }
      atLastCheck = now;
    }, windowMs);
  });
  // Nobody may be listening when the body ends first.
  stalled.catch(() => undefined);
  return { stalled, stop: () => clearInterval(timer) };
}
