/**
 * Expired images are removed by a sweep every `expirySweepSeconds`, on every instance (docs/api.md,
 * "Expiration"). Several sweeps at once, on one instance or many, remove each image exactly once and
 * without errors: each batch is claimed in the database first (images.claimExpired), never by a lock
 * of this process. A sweep's cost grows with the expired images, not with the library. Viewers and
 * delete links stop finding an image at the instant it expires, whether or not it was swept yet.
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../get-service';
import { periodic } from '../operations/periodic';

/** Images claimed and removed at a time: one transaction each. */
const BATCH = 200;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  async function sweep(now: Date): Promise<number> {
    const images = getService(strapi, 'images');
    const removal = getService(strapi, 'image-removal');
    const metrics = getService(strapi, 'metrics');
    let removed = 0;
    try {
      for (;;) {
        const claimed = await images.claimExpired(now, BATCH);
        if (claimed.length === 0) break;
        await removal.remove(claimed, 'expiry');
        removed += claimed.length;
      }
    } catch (error) {
      metrics.swept('expiry', 'failed', { expired_images: removed });
      throw error;
    }
    metrics.swept('expiry', 'ok', { expired_images: removed });
    if (removed > 0) strapi.log.info(`image-api: swept ${removed} expired image(s)`);
    return removed;
  }
  const job = periodic(sweep, (error) => strapi.log.error(`image-api: expiry sweep failed: ${(error as Error)?.message ?? error}`));

  return {
    /**
     * Removes what has expired by `now`; returns how many images this sweep removed. A sweep already
     * running on this instance is joined, not doubled.
     */
    run: (now = new Date()): Promise<number> => job.run(now),

    /** Sweeps every `expirySweepSeconds` until stop(); a failed sweep is logged and the next one tries again. */
    start: (): void => job.start(getConfig(strapi).expirySweepSeconds * 1000, () => [new Date()]),

    /** Stops the timer and waits for a sweep under way. */
    stop: (): Promise<void> => job.stop(),
  };
};
