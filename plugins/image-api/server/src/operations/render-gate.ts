/**
 * Admission of transformation renders (delivery/renditions.ts): a request gate of their own
 * (request-gate.ts), apart from the uploads', so that renders asked for by strangers can neither
 * refuse keyed uploads nor queue ahead of them. At most `maxRendersInFlight` renders per process,
 * waiting for an image-work slot or rendering, and `maxRendersPerAddress` of them from one client
 * address; past either, 503 or 429 with Retry-After at once. Kept results (a read) and renders
 * under way (joined) take no ticket. The image-work slots renders may hold are bounded apart
 * (images/image-work.ts, `renderConcurrency`).
 */
import type { Core } from '@strapi/strapi';
import { getConfig } from '../get-service';
import type { ImageApiConfig } from '../config';
import { createRequestGate, type RequestGate } from './request-gate';

/** `maxRendersPerAddress`, or a quarter of the renders in flight when it is not set (at least one). */
export const rendersPerAddress = (config: Pick<ImageApiConfig, 'maxRendersPerAddress' | 'maxRendersInFlight'>) =>
  config.maxRendersPerAddress ?? Math.max(1, Math.floor(config.maxRendersInFlight / 4));

export default ({ strapi }: { strapi: Core.Strapi }): RequestGate =>
  createRequestGate(() => {
    const config = getConfig(strapi);
    return { maxRequests: config.maxRendersInFlight, maxBytes: Number.POSITIVE_INFINITY, maxPerAddress: rendersPerAddress(config) };
  });
