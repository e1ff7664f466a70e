/**
 * Admission control of the upload routes: at most `maxRequestsInFlight` requests at once per
 * process, holding at most `maxBodyBytesInFlight` bytes of bodies between them (as declared by
 * Content-Length; a body of unknown length counts as the largest image). Decided before a byte of
 * the body is read, so a burst past the limits costs a 503 with Retry-After, not memory: each
 * request in flight holds its body, and an image being worked on holds its pixels.
 *
 * It also drains the process on shutdown: new requests are refused while those in flight finish.
 */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../../get-service';

export interface GateLimits {
  maxRequests: number;
  maxBytes: number;
}

/** A request let in; leave() once it is answered. */
export interface Ticket {
  leave(): void;
}

export type Refusal = 'full' | 'draining';

export function createRequestGate(limitsOf: () => GateLimits) {
  let requests = 0;
  let bytes = 0;
  let draining = false;
  const idleWaiters = new Set<() => void>();

  return {
    /** A ticket for a request declaring `declaredBytes` of body, or why it is refused. */
    enter(declaredBytes: number): Ticket | Refusal {
      if (draining) return 'draining';
      const { maxRequests, maxBytes } = limitsOf();
      // A lone request is always let in, however big: the body limits judge it, not the gate.
      if (requests >= maxRequests || (requests > 0 && bytes + declaredBytes > maxBytes)) return 'full';
      requests++;
      bytes += declaredBytes;
      let left = false;
      return {
        leave() {
          if (left) return;
          left = true;
          requests--;
          bytes -= declaredBytes;
          if (requests === 0) for (const wake of idleWaiters) wake();
        },
      };
    },

    inFlight: () => ({ requests, bytes }),

    draining: () => draining,

    /** Refuses new requests from now on; true once none is in flight, false if `timeoutMs` passed first. */
    drain(timeoutMs: number): Promise<boolean> {
      draining = true;
      if (requests === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (idle: boolean) => {
          clearTimeout(timer);
          idleWaiters.delete(wake);
          resolve(idle);
        };
        const wake = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        idleWaiters.add(wake);
      });
    },
  };
}

export type RequestGate = ReturnType<typeof createRequestGate>;

export default ({ strapi }: { strapi: Core.Strapi }): RequestGate =>
  createRequestGate(() => {
    const config = getConfig(strapi);
    return { maxRequests: config.maxRequestsInFlight, maxBytes: config.maxBodyBytesInFlight };
  });
