/**
 * The plugin's admin routes (under `/image-api`, admin JWT): the server declares them
 * (server/src/routes/index.ts), the admin calls them (admin/src/api.ts), both from these paths.
 */
import { PLUGIN_ID } from '../identity';

/** The client configurations a key entry offers (server/src/keys/client-configs.ts makes them). */
export const CLIENT_KINDS = ['sharex', 'picgo', 'curl'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/** Route paths as Koa's router reads them (`:name` parameters). */
export const ADMIN_ROUTES = {
  revealKey: '/api-keys/:documentId/key',
  regenerateKey: '/api-keys/:documentId/regenerate',
  clientConfig: '/api-keys/:documentId/client-config/:kind',
  keyHolding: '/api-keys/:documentId/holding',
  usageOverview: '/usage/overview',
  usageKeys: '/usage/keys',
  keyUsage: '/usage/keys/:documentId',
  deleteImage: '/images/:idEncoded',
  serving: '/serving',
  // Moderation's review (shared/contracts/review.ts), each behind `images.review`.
  reviewQueue: '/review/queue',
  reviewThumbnail: '/review/images/:idEncoded/thumbnail',
  reviewApprove: '/review/images/:idEncoded/approve',
  reviewTakedown: '/review/images/:idEncoded/takedown',
  reviewBlock: '/review/images/:idEncoded/block',
  blocklist: '/review/blocklist',
  // Its body (a hash list, up to HASH_LIST_MAX_BYTES of text) is read by the route, not by Strapi's parser.
  blocklistImport: '/review/blocklist/import',
} as const;

/** A route's URL for the admin's fetch client: the plugin's prefix, parameters filled in and escaped. */
export function adminUrl(route: keyof typeof ADMIN_ROUTES, params: Record<string, string> = {}, query: Record<string, string | number> = {}): string {
  const path = ADMIN_ROUTES[route].replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)] as [string, string])).toString();
  return `/${PLUGIN_ID}${path}${search ? `?${search}` : ''}`;
}
