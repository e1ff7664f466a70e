/**
 * Downloads a key's client configuration (ShareX, PicGo/PicList, curl) filled in with the key: fetched
 * with the admin's token from the plugin's admin route, saved through a blob link.
 */
import { useCallback } from 'react';
import { useNotification } from '@strapi/strapi/admin';
import { CLIENT_KINDS, type ClientKind } from '../../../shared/contracts/admin-routes';
import { useImageApi } from '../api';
import { useMessage } from './useMessage';

const FILENAMES: Record<ClientKind, string> = { sharex: 'image-api.sxcu', picgo: 'image-api.picgo.json', curl: 'image-api.curl.sh' };

/** The configurations a key offers, with their button labels. */
export function useClientFiles() {
  const t = useMessage();
  return CLIENT_KINDS.map((kind) => ({ kind, label: t(`client-config.${kind}`), filename: FILENAMES[kind] }));
}

export function useClientConfigDownload() {
  const api = useImageApi();
  const t = useMessage();
  const { toggleNotification } = useNotification();
  return useCallback(
    async (documentId: string, kind: ClientKind) => {
      try {
        const text = await api.clientConfig(documentId, kind);
        const link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob([text], { type: 'application/octet-stream' }));
        link.download = FILENAMES[kind];
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.href), 1000);
      } catch {
        toggleNotification({ type: 'danger', message: t('client-config.failed') });
      }
    },
    [api, t, toggleNotification]
  );
}
