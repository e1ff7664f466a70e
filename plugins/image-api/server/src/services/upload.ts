/**
 * One upload, start to finish: authenticate the key, read the source (file part, base64 or URL),
 * check and process the image, store it. Every refusal is an ApiError from the contract's table.
 */
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import type { Core } from '@strapi/strapi';
import { errors, isApiError } from './contract/api-error';
import { decodeBase64Source } from './sources/base64-source';
import { createAddressPolicy, type AddressPolicy } from './sources/address-policy';
import { fetchSource } from './sources/source-fetcher';
import { probeImage } from './images/image-probe';
import { buildImageSet, type ImageSet } from './images/image-variants';
import { all } from './runtime/settle-all';
import { readExif } from './images/image-metadata';
import { runImageWork } from './images/image-work';
import { cleanOriginalFilename, EXTENSION_BY_FORMAT, randomId, storedName } from './storage/naming';
import type { StoredImage } from './contract/image-json';
import type { SourceInput, UploadParams } from './contract/request-params';
import type { AuthenticatedKey } from './keys/api-keys';
import type { ImageApiConfig } from '../config';
import { getService, getConfig } from '../get-service';

export interface UploadContext {
  method: string;
  /** The request's temp folder, made on first use, removed by the body middleware when the request ends. */
  tempDir(): Promise<string>;
  /** A buffer lent for the rest of the request (pooled, like received file parts). */
  borrow(size: number): Buffer;
}

/** Reads a file of known size into `into` in one call (fs.readFile allocates and reads in 512 KB steps). */
async function readWhole(filepath: string, into: Buffer): Promise<Buffer> {
  const file = await fs.promises.open(filepath, 'r');
  try {
    let offset = 0;
    while (offset < into.length) {
      const { bytesRead } = await file.read(into, offset, into.length - offset, offset);
      if (bytesRead === 0) throw new Error(`${filepath}: shorter than the ${into.length} bytes downloaded`);
      offset += bytesRead;
    }
    return into;
  } finally {
    await file.close();
  }
}

interface ReadSource {
  bytes: Buffer;
  /** The client's name for the file, if it gave one. */
  filename: string | null;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const config = (): ImageApiConfig => getConfig(strapi);
  // Built once per allow-list (its entries were checked at boot), not per URL upload.
  let addressPolicy: { entries: string; policy: AddressPolicy } | null = null;
  const policyFor = (entries: string[]): AddressPolicy => {
    const key = entries.join('\n');
    if (addressPolicy?.entries !== key) addressPolicy = { entries: key, policy: createAddressPolicy(entries) };
    return addressPolicy.policy;
  };

  async function readSource(source: SourceInput, context: UploadContext, cfg: ImageApiConfig): Promise<ReadSource> {
    switch (source.kind) {
      case 'file': {
        if (source.file.size > cfg.maxBytes) throw errors.tooBig(cfg.maxBytes);
        return { bytes: source.file.bytes, filename: source.file.originalFilename };
      }
      case 'base64': {
        if (context.method === 'GET') throw errors.base64ViaGet();
        return { bytes: decodeBase64Source(source.data, cfg.maxBytes), filename: null };
      }
      case 'url': {
        const fetched = await fetchSource(source.url, {
          policy: policyFor(cfg.urlAllowlist),
          maxBytes: cfg.maxBytes,
          timeoutMs: cfg.fetchTimeoutMs,
          maxRedirects: cfg.fetchMaxRedirects,
          destination: path.join(await context.tempDir(), 'url-source'),
        });
        return { bytes: await readWhole(fetched.filepath, context.borrow(fetched.bytes)), filename: fetched.filename || null };
      }
    }
  }

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

    async upload(params: UploadParams, apiKey: AuthenticatedKey, context: UploadContext): Promise<StoredImage> {
      const cfg = config();
      if (!params.source) throw errors.emptySource();

      const { bytes, filename } = await readSource(params.source, context, cfg);
      if (bytes.length === 0) throw errors.emptySource();
      const { set, originalExif } = await runImageWork(async () => {
        const probed = await probeImage(bytes, cfg.allowedTypes, cfg.maxPixels);
        const [set, originalExif] = await all<[ImageSet, Record<string, unknown> | null]>([
          buildImageSet(bytes, probed, cfg),
          cfg.keepExif && probed.hasMetadata ? readExif(bytes) : Promise.resolve(null),
        ]);
        return { set, originalExif };
      });

      const idEncoded = randomId(10);
      const extension = EXTENSION_BY_FORMAT[set.original.format];
      const originalFilename = cleanOriginalFilename(filename ?? '') || `${idEncoded}.${extension}`;
      return getService(strapi, 'media-store').store({
        set,
        idEncoded,
        name: storedName(filename, idEncoded),
        md5: crypto.createHash('md5').update(set.original.buffer).digest('hex'),
        originalFilename,
        title: params.title,
        description: params.description,
        nsfw: params.nsfw,
        apiKeyId: apiKey.id,
        ownerId: apiKey.ownerId,
        ownerUserId: apiKey.ownerUserId,
        originalExif,
      });
    },
  };
};
