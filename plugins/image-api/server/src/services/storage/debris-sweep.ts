/**
 * The debris sweep: what a crash or a failed cleanup left behind is removed, at boot and then every
 * `debrisSweepSeconds` on every instance: provider files of uploads that never got their records (see
 * journal.ts), per-request temp folders, and Idempotency-Key rows past their 24 hours. Only debris
 * older than `sweepAfterMs` is touched, so uploads in flight (here or on other instances) are safe;
 * two instances sweeping at once delete the same files twice, which is harmless.
 */
import type { Core } from '@strapi/strapi';
import { getConfig, getService } from '../../get-service';
import { periodic } from '../runtime/periodic';
import { sweepTempFolders, tempRoot } from '../runtime/temp-folders';

export interface DebrisSwept {
  uploads: number;
  tempFolders: number;
  idempotencyKeys: number;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  async function sweep(): Promise<DebrisSwept> {
    const { sweepAfterMs: olderThanMs, tmpDir } = getConfig(strapi);
    const [uploads, tempFolders, idempotencyKeys] = await Promise.all([
      getService(strapi, 'journal').sweep(olderThanMs),
      sweepTempFolders(tempRoot(tmpDir), olderThanMs),
      getService(strapi, 'idempotency').sweep(),
    ]);
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
