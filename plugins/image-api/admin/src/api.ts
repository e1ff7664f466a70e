/**
 * The admin's calls to the plugin's admin routes (shared/contracts/admin-routes.ts), through Strapi's
 * fetch client (the admin's token, its error handling). Components ask this hook, never a URL.
 */
import { useMemo } from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import { adminUrl, type ClientKind } from '../../shared/contracts/admin-routes';
import type { DayUsage, KeyHolding, KeySummary, OverviewAnswer } from '../../shared/contracts/usage';
import type { ServingAnswer } from '../../shared/contracts/serving';

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
      clientConfig: async (documentId: string, kind: ClientKind) =>
        (await get<string>(adminUrl('clientConfig', { documentId, kind }), { responseType: 'text' })).data,
    }),
    [get, post, del]
  );
}
