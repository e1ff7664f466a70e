/**
 * Shutdown (SIGTERM, SIGINT: Strapi calls this before it closes the HTTP server and the database).
 * Strapi's own shutdown destroys every open socket at once, so this drains first: the server stops
 * accepting connections, new requests on open ones get 503 (Connection: close), and the requests in
 * flight finish (each upload complete or absent), for at most `shutdownTimeoutMs`.
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from './get-service';
import { stopHeicWorkers } from './images/decoders/heic-variants';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  const server = strapi.server?.httpServer;
  // Stops accepting connections and closes idle keep-alive ones; Strapi closes the rest after this.
  if (server?.listening) server.close();
  const { shutdownTimeoutMs } = getConfig(strapi);
  // Uploads, and transformation renders (a gate of their own).
  const gates = [getService(strapi, 'request-gate'), getService(strapi, 'render-gate')];
  const inFlight = () => gates.reduce((n, gate) => n + gate.inFlight().requests, 0);
  const requests = inFlight();
  if (requests > 0) strapi.log.info(`image-api: shutting down: waiting for ${requests} request(s) in flight`);
  if ((await Promise.all(gates.map((gate) => gate.drain(shutdownTimeoutMs)))).includes(false)) {
    strapi.log.warn(`image-api: shutting down: ${inFlight()} request(s) still in flight after ${shutdownTimeoutMs} ms`);
  }
  await Promise.all([
    getService(strapi, 'expiry-sweep').stop(),
    getService(strapi, 'debris-sweep').stop(),
    getService(strapi, 'renditions').stop(),
    getService(strapi, 'placeholders').stop(),
    getService(strapi, 'purges').stop(),
    getService(strapi, 'classifier').stop(),
    stopHeicWorkers(),
  ]);
  await getService(strapi, 'rate-limits').disconnect();
};
