/**
 * One signal for "a key changed": its entry updated or deleted, by any writer (the Content Manager,
 * the key panel, the CLI, the query engine), emitted by its lifecycles (keys/key-lifecycles.ts) and
 * heard by the key lookup cache (keys/api-keys.ts subscribes where it is made; see
 * storage/image-changes.ts for why caches subscribe themselves). The next request on this instance
 * reads the entry as it is now.
 *
 * Other instances: no channel between instances exists; their lookups live `keyCacheMs` (2 s), so
 * they see the change within that (docs/deployment.md, what the cluster tests prove).
 */
import type { Core } from '@strapi/strapi';
import { createSignal, type Listener } from '../operations/in-process-signal';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const signal = createSignal<void>((error) =>
    strapi.log.warn(`image-api: a cache did not take a key change: ${(error as Error)?.message ?? error}`)
  );
  return {
    /** Says that a key entry changed; every listener has run when this returns. */
    changed: (): void => signal.emit(),
    subscribe: (listener: Listener<void>) => signal.subscribe(listener),
  };
};
