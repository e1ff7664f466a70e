/**
 * The debris sweep: what a crash or a failed cleanup left behind is removed, at boot and then every
 * `debrisSweepSeconds` on every instance: provider files of uploads that never got their records (see
 * journal.ts), per-request temp folders, and Idempotency-Key rows past their 24 hours. Only debris
 * older than `sweepAfterMs` (at least a minute; ages on the database's clock) is touched, so uploads
 * in flight, here or on other instances, are safe. The shared part (journal, Idempotency-Key rows)
 * is swept by one instance at a time: a round whose lock another instance holds skips it.
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../get-service';
import { databaseLock } from '../database/database-lock';
import { periodic } from '../operations/periodic';
import { sweepTempFolders, tempRoot } from '../http/temp-folders';

export interface DebrisSwept {
  uploads: number;
  tempFolders: number;
  idempotencyKeys: number;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const lock = databaseLock(strapi, 'strapi-plugin-image-api:debris-sweep');

  /** The database's debris, if no other instance is sweeping it right now. */
  async function sweepShared(olderThanMs: number): Promise<{ uploads: number; idempotencyKeys: number }> {
    const held = await lock.tryAcquire();
    if (!held) return { uploads: 0, idempotencyKeys: 0 };
    try {
      return {
        uploads: await getService(strapi, 'journal').sweep(olderThanMs),
        idempotencyKeys: await getService(strapi, 'idempotency').sweep(),
      };
    } finally {
      await held.release();
    }
  }

  async function sweep(): Promise<DebrisSwept> {
    const { sweepAfterMs: olderThanMs, tmpDir } = getConfig(strapi);
    const metrics = getService(strapi, 'metrics');
    const [{ uploads, idempotencyKeys }, tempFolders] = await Promise.all([
      sweepShared(olderThanMs),
      // Temp folders are this instance's own.
      sweepTempFolders(tempRoot(tmpDir), olderThanMs),
    ]).catch((error) => {
      metrics.swept('debris', 'failed');
      throw error;
    });
    metrics.swept('debris', 'ok', { unfinished_uploads: uploads, temp_folders: tempFolders, idempotency_keys: idempotencyKeys });
    if (uploads || tempFolders) {
      strapi.log.info(`image-api: swept ${uploads} unfinished upload(s) and ${tempFolders} temp folder(s)`);
    }
    return { uploads, tempFolders, idempotencyKeys };
  }
  const job = periodic(sweep, (error) => strapi.log.warn(`image-api: debris sweep failed: ${(error as Error)?.message ?? error}`));

  return {
    /** Sweeps now (a sweep under way is joined). */
    run: (): Promise<DebrisSwept> => job.run(),
    /** Sweeps every `debrisSweepSeconds` until stop(). */
    start: (): void => job.start(getConfig(strapi).debrisSweepSeconds * 1000, () => []),
    stop: (): Promise<void> => job.stop(),
  };
};
