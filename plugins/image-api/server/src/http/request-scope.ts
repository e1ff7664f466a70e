/**
 * What an upload request holds while it runs, given back when it ends whatever happened: buffers lent
 * by the pool (received image parts, decoded base64, downloads) and a temp folder, made only if a
 * URL download needs one.
 */
import { BufferPool, type BufferLease } from './buffer-pool';
import type { createTempFolders } from './temp-folders';

export interface RequestScope {
  /** `size` bytes lent from the pool for this request (contents undefined), given back when it ends. */
  borrow(size: number): Buffer;
  /** The request's own temp folder, made on first use. */
  tempDir(): Promise<string>;
}

export interface ScopeResources {
  pool: BufferPool;
  folders: ReturnType<typeof createTempFolders>;
  tmpRoot: string;
}

/** A scope for one request; `end()` gives back everything it lent (call it once everything that used it has settled). */
export function openRequestScope({ pool, folders, tmpRoot }: ScopeResources): RequestScope & { end(): Promise<void> } {
  const leases: BufferLease[] = [];
  let tempDir: Promise<string> | null = null;
  return {
    borrow(size) {
      const lease = pool.acquire(size);
      leases.push(lease);
      return lease.bytes;
    },
    tempDir: () => (tempDir ??= folders.make(tmpRoot)),
    async end() {
      for (const lease of leases) lease.release();
      // The scope may outlive the request (its context kept by an async resource made meanwhile): it
      // keeps no buffer.
      leases.length = 0;
      const made = tempDir && (await tempDir.catch(() => null));
      if (made) await folders.remove(made);
    },
  };
}
