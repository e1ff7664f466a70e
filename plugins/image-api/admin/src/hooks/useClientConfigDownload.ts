/**
 * Downloads a key's client configuration (ShareX, PicGo/PicList, curl) filled in with the key: fetched
 * with the admin's token from the plugin's admin route, saved through a blob link.
 */
import { useCallback } from 'react';
import { useFetchClient, useNotification } from '@strapi/strapi/admin';

export type ClientKind = 'sharex' | 'picgo' | 'curl';

export const CLIENT_FILES: Array<{ kind: ClientKind; label: string; filename: string }> = [
  { kind: 'sharex', label: 'ShareX (.sxcu)', filename: 'image-api.sxcu' },
  { kind: 'picgo', label: 'PicGo / PicList', filename: 'image-api.picgo.json' },
  { kind: 'curl', label: 'curl', filename: 'image-api.curl.sh' },
];

export function useClientConfigDownload() {
  const { get } = useFetchClient();
  const { toggleNotification } = useNotification();
  return useCallback(
    async (documentId: string, kind: ClientKind, filename: string) => {
      try {
        const res = await get<string>(`/image-api/api-keys/${documentId}/client-config/${kind}`, { responseType: 'text' });
        const link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob([res.data], { type: 'application/octet-stream' }));
        link.download = filename;
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.href), 1000);
      } catch {
        toggleNotification({ type: 'danger', message: 'The configuration could not be made' });
      }
    },
    [get, toggleNotification]
  );
}
