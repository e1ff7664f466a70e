/**
 * Admission control of the upload routes (and, as an instance of its own, of transformation renders:
 * render-gate.ts): at most `maxRequestsInFlight` requests at once per
 * process, holding at most `maxBodyBytesInFlight` bytes of bodies between them (as declared by
 * Content-Length; a body of unknown length counts as the largest image), and at most
 * `maxRequestsPerAddress` of them from one client address, so that one client (16 slow bodies from
 * one address once held every slot for hours) cannot shut the others out. Decided before a byte of
 * the body is read, so a burst past the limits costs a 503 (or a 429 for the address) with
 * Retry-After, not memory: each request in flight holds its body, and an image being worked on
 * holds its pixels.
 *
 * A request whose key comes only with its body (a `key` field, or the query's, which a body's key
 * overrides) cannot be refused before its body is read, so a stranger without a key can send one and
 * hold a slot with a slow body: such requests hold at most `maxUnvouched` of the requests and bytes
 * (half), and the rest stays for requests whose key was checked before their body (the X-API-Key
 * header: api/upload-pipeline.ts, steps 1 and 2). 16 keyless bodies at 2 KB/s from four addresses
 * once held every slot, and keyed uploads got 503 for as long as they trickled.
 *
 * It also drains the process on shutdown: new requests are refused while those in flight finish.
 */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../get-service';
import type { ImageApiConfig } from '../config';
import { errors, type ApiError } from '../http/api-error';

/** Seconds a client refused for load or a shutdown is asked to wait. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/** `maxRequestsPerAddress`, or a quarter of the requests in flight when it is not set (at least one). */
export const requestsPerAddress = (config: Pick<ImageApiConfig, 'maxRequestsPerAddress' | 'maxRequestsInFlight'>) =>
  config.maxRequestsPerAddress ?? Math.max(1, Math.floor(config.maxRequestsInFlight / 4));

/** What requests whose key comes with their body may hold: half the requests and bytes (at least one request). */
export const unvouchedShare = (config: Pick<ImageApiConfig, 'maxRequestsInFlight' | 'maxBodyBytesInFlight'>) => ({
  requests: Math.max(1, Math.floor(config.maxRequestsInFlight / 2)),
  bytes: Math.floor(config.maxBodyBytesInFlight / 2),
});

/**
 * The answer to a refused request: 429 when its address holds its share (`perAddress`), else 503;
 * both with Retry-After.
 */
export function refusalError(refusal: Refusal, perAddress: number, work: 'uploads' | 'renders' = 'uploads'): ApiError {
  if (refusal === 'address') return errors.addressBusy(perAddress, BUSY_RETRY_AFTER_SECONDS, work);
  return errors.unavailable(refusal === 'draining' ? 'shutting down' : `too many ${work} in progress, try again shortly`, BUSY_RETRY_AFTER_SECONDS);
}

export interface GateLimits {
  maxRequests: number;
  maxBytes: number;
  /** Requests in flight from one client address. */
  maxPerAddress: number;
  /** Of the requests and bytes in flight, what requests not vouched for may hold (see the file comment); none: all. */
  maxUnvouched?: { requests: number; bytes: number };
}

/** A request let in; leave() once it is answered. */
export interface Ticket {
  leave(): void;
}

/** A ticket shared by every answer that sends what it was taken for: hold() while sending. */
export interface SharedTicket {
  /** One more holder; the function it returns lets go (once). Nothing is held once the ticket was left. */
  hold(): () => void;
}

/**
 * Shares a ticket among the answers that send what it was taken for (a render's result, by the
 * request that asked for it and those that joined it): the ticket is left when the last of them lets
 * go, or at the next turn of the event loop if none took hold by then (every one that awaits the
 * result takes hold in the same turn, as its continuation runs). A client that stops reading thus
 * keeps its ticket, and the gate's bounds hold for the bytes waiting to be sent too.
 */
export function shareTicket(ticket: Ticket): SharedTicket {
  let holders = 0;
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    ticket.leave();
  };
  setImmediate(() => {
    if (holders === 0) leave();
  });
  return {
    hold() {
      if (left) return () => undefined;
      holders++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holders === 0) leave();
      };
    },
  };
}

/** Why a request is refused: the process is full, its address holds its share, or it shuts down. */
export type Refusal = 'full' | 'address' | 'draining';

export function createRequestGate(limitsOf: () => GateLimits) {
  let requests = 0;
  let bytes = 0;
  /** Of those, the requests (and their bytes) not vouched for by a key checked before their body. */
  let unvouched = 0;
  let unvouchedBytes = 0;
  let draining = false;
  /** Requests in flight by client address; an address leaves the map with its last request. */
  const byAddress = new Map<string, number>();
  const idleWaiters = new Set<() => void>();

  return {
    /**
     * A ticket for a request from `address` declaring `declaredBytes` of body, or why it is refused.
     * `vouched`: false for a request whose key comes only with its body (see the file comment).
     */
    enter(declaredBytes: number, address: string, vouched = true): Ticket | Refusal {
      if (draining) return 'draining';
      const { maxRequests, maxBytes, maxPerAddress, maxUnvouched } = limitsOf();
      // A lone request is always let in, however big: the body limits judge it, not the gate.
      if (requests >= maxRequests || (requests > 0 && bytes + declaredBytes > maxBytes)) return 'full';
      if (!vouched && maxUnvouched && (unvouched >= maxUnvouched.requests || (unvouched > 0 && unvouchedBytes + declaredBytes > maxUnvouched.bytes))) return 'full';
      const fromAddress = byAddress.get(address) ?? 0;
      if (fromAddress >= maxPerAddress) return 'address';
      requests++;
      bytes += declaredBytes;
      if (!vouched) {
        unvouched++;
        unvouchedBytes += declaredBytes;
      }
      byAddress.set(address, fromAddress + 1);
      let left = false;
      return {
        leave() {
          if (left) return;
          left = true;
          requests--;
          bytes -= declaredBytes;
          if (!vouched) {
            unvouched--;
            unvouchedBytes -= declaredBytes;
          }
          const remaining = (byAddress.get(address) ?? 1) - 1;
          if (remaining > 0) byAddress.set(address, remaining);
          else byAddress.delete(address);
          if (requests === 0) for (const wake of idleWaiters) wake();
        },
      };
    },

    inFlight: () => ({ requests, bytes, addresses: byAddress.size }),

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
    return {
      maxRequests: config.maxRequestsInFlight,
      maxBytes: config.maxBodyBytesInFlight,
      maxPerAddress: requestsPerAddress(config),
      maxUnvouched: unvouchedShare(config),
    };
  });
