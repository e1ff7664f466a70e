/**
 * One upload of an authenticated key, start to finish: where it goes (the key's folder, or an album
 * below it), when it expires, the source's bytes, the image work (probe, the stored original and its
 * variants), and the store. Every refusal is an ApiError from the error table (docs/api.md, "Errors").
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import type { StoredImage } from '../protocol/image-json';
import { readExif } from '../images/metadata/exif-read';
import { withTrueAlphaFlag } from '../images/metadata/webp-chunks';
import { probeImage } from '../images/image-probe';
import { buildVariants, checkStoredBytes, type VariantSet } from '../images/image-variants';
import { runImageWork } from '../images/image-work';
import type { AuthenticatedKey } from '../keys/api-keys';
import type { RequestScope } from '../http/request-scope';
import { settleAll } from '../images/settle-all';
import { policyFor } from '../sources/address-policy';
import { readSource } from '../sources/read-source';
import type { CommonParams, UploadParams } from '../protocol/request-params';
import type { SourceInput } from '../protocol/source-precedence';
import { cleanOriginalFilename, EXTENSION_BY_FORMAT, randomId, storedName, libraryName } from '../images/naming';
import { errors } from '../http/api-error';
import { expirationSeconds, type ExpirationLimits } from '../protocol/expiration';
import { getConfig, getService } from '../get-service';
import { isUniqueViolation } from '../database/unique-violation';

/**
 * What the client asked to store, and how: the upload's parameters (protocol/request-params.ts) with a
 * source; the album is checked here against the key's folder, the expiration against its default.
 */
export type UploadRequest = Omit<UploadParams, keyof CommonParams | 'source'> & { source: SourceInput };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  /**
   * The key entry's default expiration, in seconds. It was checked when the entry was saved; if the
   * configured range has narrowed since, the range wins; a value that no longer parses is ignored.
   */
  function keyDefaultExpiration(apiKey: AuthenticatedKey, limits: ExpirationLimits): number | null {
    if (!apiKey.defaultExpiration) return null;
    try {
      const seconds = expirationSeconds(apiKey.defaultExpiration, { minExpiration: 1, maxExpiration: Number.MAX_SAFE_INTEGER });
      return Math.min(Math.max(seconds, limits.minExpiration), limits.maxExpiration);
    } catch {
      strapi.log.warn(`image-api: key "${apiKey.name}": default expiration "${apiKey.defaultExpiration}" is not one; ignored`);
      return null;
    }
  }

  return {
    /** Stores the upload; with an Idempotency-Key, remembered with it (storage/idempotency.ts). */
    async upload(request: UploadRequest, apiKey: AuthenticatedKey, scope: RequestScope, idempotencyKey: string | null = null): Promise<StoredImage> {
      const cfg = getConfig(strapi);
      // Refusals that cost nothing come before the download and the image work.
      const folder = await getService(strapi, 'media-folder').uploadFolder(apiKey.folderId, request.albumId);
      const expiration = request.expiration ?? keyDefaultExpiration(apiKey, cfg);
      const quotas = getService(strapi, 'quotas');
      await quotas.checkRoom(apiKey);
      const { bytes, filename } = await readSource(request.source, scope, cfg, policyFor(cfg.urlAllowlist));
      if (bytes.length === 0) throw errors.emptySource();
      const metrics = getService(strapi, 'metrics');
      metrics.bytesReceived(request.source.kind === 'decoded' ? 'base64' : request.source.kind, bytes.length);
      // A key that reuses or refuses duplicates: one indexed lookup before any image work.
      const duplicates = getService(strapi, 'duplicates');
      const sourceDigest = duplicates.digestOf(apiKey, bytes);
      const earlier = sourceDigest && (await duplicates.find(sourceDigest));
      if (earlier) return duplicates.answerFor(apiKey, earlier);
      const workDone = metrics.timeImageWork();
      const { variants, originalExif } = await runImageWork(async () => {
        // A WebP whose VP8X flags deny the alpha its image has would be decoded without it: repaired first.
        const decodable = withTrueAlphaFlag(bytes);
        const probed = await probeImage(decodable, cfg.allowedTypes, cfg);
        const [variants, originalExif] = await settleAll<[VariantSet, Record<string, unknown> | null]>([
          buildVariants(decodable, probed, cfg, request.width),
          cfg.keepExif && probed.hasMetadata ? readExif(decodable) : Promise.resolve(null),
        ]);
        checkStoredBytes(variants, cfg.maxBytes);
        return { variants, originalExif };
      }).finally(workDone);

      const idEncoded = randomId(10);
      const idempotency = getService(strapi, 'idempotency');
      const remembered = idempotencyKey === null ? null : { apiKeyId: apiKey.id, key: idempotencyKey };
      const extension = EXTENSION_BY_FORMAT[variants.original.format];
      const originalFilename = cleanOriginalFilename(filename ?? '') || `${idEncoded}.${extension}`;
      const store = getService(strapi, 'media-store').store({
        variants,
        idEncoded,
        name: storedName(filename, idEncoded),
        md5: crypto.createHash('md5').update(variants.original.buffer).digest('hex'),
        originalFilename,
        libraryName: libraryName(request.title, originalFilename, extension),
        title: request.title,
        description: request.description,
        nsfw: request.nsfw,
        apiKeyId: apiKey.id,
        keyName: apiKey.name,
        adminOwnerId: apiKey.adminOwnerId,
        createdByAdminId: apiKey.adminOwnerId ?? apiKey.issuedByAdminId,
        siteUserOwnerId: apiKey.siteUserOwnerId,
        originalExif,
        folder,
        expiresIn: expiration,
        deleteSecret: sourceDigest ? duplicates.deleteSecret(sourceDigest, idEncoded) : remembered && idempotency.deleteSecret(remembered, idEncoded),
        sourceDigest,
        // The key's quota and use count in the same transaction as the upload's rows (only stored
        // uploads count), and so is the Idempotency-Key remembered (a twin request racing it fails here).
        inTransaction: async (trx, image, file) => {
          await quotas.charge(trx, apiKey, file);
          if (sourceDigest) await duplicates.freeExpired(trx, sourceDigest, image.createdAt);
          if (remembered) await idempotency.remember(trx, remembered, image);
        },
      });
      const storeDone = metrics.timeStore();
      try {
        return await store;
      } catch (error) {
        // An identical upload of the key was recorded first (the unique index on the digest refused
        // this one, whose files are gone again): this one is its duplicate.
        const twin = sourceDigest && isUniqueViolation(error) ? await duplicates.find(sourceDigest) : null;
        if (!twin) throw error;
        return duplicates.answerFor(apiKey, twin);
      } finally {
        storeDone();
      }
    },
  };
};
