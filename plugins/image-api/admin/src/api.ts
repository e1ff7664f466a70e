/**
 * The admin's calls to the plugin's admin routes (shared/contracts/admin-routes.ts), through Strapi's
 * fetch client (the admin's token, its error handling). Components ask this hook, never a URL.
 */
import { useMemo } from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import { adminUrl, type ClientKind } from '../../shared/contracts/admin-routes';
import type { DayUsage, KeyHolding, KeySummary, OverviewAnswer } from '../../shared/contracts/usage';
import type { ServingAnswer } from '../../shared/contracts/serving';
import type { BlockAnswer, BlockKind, BlocklistCounts, ImportAnswer, QueuePage } from '../../shared/contracts/review';

export function useImageApi() {
  const { get, post, del } = useFetchClient();
  return useMemo(
    () => ({
      overview: async (days: number) => (await get<{ data: OverviewAnswer }>(adminUrl('usageOverview', {}, { days }))).data.data,
      keys: async (days: number) => (await get<{ data: KeySummary[] }>(adminUrl('usageKeys', {}, { days }))).data.data,
      keyUsage: async (documentId: string, days: number) =>
        (await get<{ data: DayUsage[] }>(adminUrl('keyUsage', { documentId }, { days }))).data.data,
      deleteImage: async (idEncoded: string) => {
        await del(adminUrl('deleteImage', { idEncoded }));
      },
      keyHolding: async (documentId: string) => (await get<{ data: KeyHolding }>(adminUrl('keyHolding', { documentId }))).data.data,
      revealKey: async (documentId: string) => (await get<{ data: { key: string } }>(adminUrl('revealKey', { documentId }))).data.data.key,
      regenerateKey: async (documentId: string) =>
        (await post<{ data: { key: string } }>(adminUrl('regenerateKey', { documentId }))).data.data.key,
      serving: async () => (await get<{ data: ServingAnswer }>(adminUrl('serving'))).data.data,
      // Moderation's review (shared/contracts/review.ts).
      reviewQueue: async (page: number) => (await get<{ data: QueuePage }>(adminUrl('reviewQueue', {}, { page }))).data.data,
      /** A queued image's thumbnail, as an object URL the caller revokes (the route needs the admin's token). */
      reviewThumbnail: async (idEncoded: string) =>
        URL.createObjectURL((await get<Blob>(adminUrl('reviewThumbnail', { idEncoded }), { responseType: 'blob' })).data),
      approve: async (idEncoded: string) => {
        await post(adminUrl('reviewApprove', { idEncoded }));
      },
      takedown: async (idEncoded: string, reason: string) => {
        await post(adminUrl('reviewTakedown', { idEncoded }), { reason });
      },
      block: async (idEncoded: string, reason: string) =>
        (await post<{ data: { blocked: BlockAnswer } }>(adminUrl('reviewBlock', { idEncoded }), { reason })).data.data.blocked,
      blocklist: async () => (await get<{ data: BlocklistCounts }>(adminUrl('blocklist'))).data.data,
      importHashes: async (kind: BlockKind, text: string) =>
        (await post<{ data: ImportAnswer & { counts: BlocklistCounts } }>(adminUrl('blocklistImport', {}, { kind }), { text })).data.data,
      clientConfig: async (documentId: string, kind: ClientKind) =>
        (await get<string>(adminUrl('clientConfig', { documentId, kind }), { responseType: 'text' })).data,
    }),
    [get, post, del]
  );
}
