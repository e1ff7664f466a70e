/**
 * A signal inside one process: whoever changes something says so once (emit), whoever keeps a copy of
 * it listens (subscribe). Listeners run at once, in the order they subscribed, before emit returns: a
 * request that follows the change finds every copy dropped already. A listener that throws is
 * reported and the others still run; the change that emitted goes on regardless (a copy left stale
 * until its own expiry is better than a deletion reported as failed after it happened).
 */
export type Listener<T> = (change: T) => void;

export interface Signal<T> {
  emit(change: T): void;
  /** Returns the unsubscribe. */
  subscribe(listener: Listener<T>): () => void;
}

export function createSignal<T>(reportError: (error: unknown) => void): Signal<T> {
  const listeners = new Set<Listener<T>>();
  return {
    emit(change) {
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (error) {
          reportError(error);
        }
      }
    },
    subscribe(listener) {
      // Each subscription its own entry: unsubscribing one leaves another of the same function.
      const own: Listener<T> = (change) => listener(change);
      listeners.add(own);
      return () => {
        listeners.delete(own);
      };
    },
  };
}
