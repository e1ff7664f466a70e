/**
 * One upload, start to finish: who is uploading (authorize), then the source's bytes, the image work
 * (probe, the stored original and its variants), and the store. Every refusal is an ApiError from the
 * error table (README, "Errors").
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import type { StoredImage } from './contract/image-json';
import { readExif } from './images/image-metadata';
import { probeImage } from './images/image-probe';
import { buildRenditions, type Renditions } from './images/image-variants';
import { runImageWork } from './images/image-work';
import type { AuthenticatedKey } from './keys/api-keys';
import type { RequestScope } from './runtime/request-scope';
import { settleAll } from './runtime/settle-all';
import { createAddressPolicy, type AddressPolicy } from './sources/address-policy';
import { readSource } from './sources/read-source';
import type { SourceInput } from './sources/source-precedence';
import { cleanOriginalFilename, EXTENSION_BY_FORMAT, randomId, storedName } from './storage/naming';
import { errors, isApiError } from './contract/api-error';
import { getConfig, getService } from '../get-service';

/** What the client asked to store. */
export interface UploadRequest {
  source: SourceInput;
  title: string | null;
  description: string | null;
  nsfw: boolean;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Built once per allow-list (its entries were checked at boot), not per URL upload.
  let addressPolicy: { entries: string; policy: AddressPolicy } | null = null;
  const policyFor = (entries: string[]): AddressPolicy => {
    const key = entries.join('\n');
    if (addressPolicy?.entries !== key) addressPolicy = { entries: key, policy: createAddressPolicy(entries) };
    return addressPolicy.policy;
  };

  return {
    /**
     * Who is uploading, and may they: the address is checked for failed attempts, the key looked
     * up, one upload charged to its rate limit. Returns the quota headers of the answer.
     */
    async authorize(key: string | null, clientIp: string): Promise<{ key: AuthenticatedKey; headers: Record<string, string> }> {
      const limits = getService(strapi, 'rate-limits');
      await limits.checkAddress(clientIp);
      let apiKey: AuthenticatedKey;
      try {
        apiKey = await getService(strapi, 'api-keys').authenticate(key);
      } catch (error) {
        // A key that matches nothing is a guess: count it against the address.
        if (key && isApiError(error) && error.status === 401) await limits.recordFailedAuth(clientIp);
        throw error;
      }
      return { key: apiKey, headers: await limits.chargeKey(apiKey) };
    },

    async upload(request: UploadRequest, apiKey: AuthenticatedKey, scope: RequestScope): Promise<StoredImage> {
      const cfg = getConfig(strapi);
      const { bytes, filename } = await readSource(request.source, scope, cfg, policyFor(cfg.urlAllowlist));
      if (bytes.length === 0) throw errors.emptySource();
      const { renditions, originalExif } = await runImageWork(async () => {
        const probed = await probeImage(bytes, cfg.allowedTypes, cfg.maxPixels);
        const [renditions, originalExif] = await settleAll<[Renditions, Record<string, unknown> | null]>([
          buildRenditions(bytes, probed, cfg),
          cfg.keepExif && probed.hasMetadata ? readExif(bytes) : Promise.resolve(null),
        ]);
        return { renditions, originalExif };
      });

      const idEncoded = randomId(10);
      const extension = EXTENSION_BY_FORMAT[renditions.original.format];
      const originalFilename = cleanOriginalFilename(filename ?? '') || `${idEncoded}.${extension}`;
      return getService(strapi, 'media-store').store({
        renditions,
        idEncoded,
        name: storedName(filename, idEncoded),
        md5: crypto.createHash('md5').update(renditions.original.buffer).digest('hex'),
        originalFilename,
        title: request.title,
        description: request.description,
        nsfw: request.nsfw,
        apiKeyId: apiKey.id,
        adminOwnerId: apiKey.adminOwnerId,
        siteUserOwnerId: apiKey.siteUserOwnerId,
        originalExif,
        // The key's use counts in the same transaction as the upload's rows: only stored uploads count.
        inTransaction: (trx) => getService(strapi, 'api-keys').recordUse(apiKey.id, trx),
      });
    },
  };
};
