/** Copies text to the clipboard, saying so (or that the browser refused: then the text is there to select). */
import { useCallback } from 'react';
import { useNotification } from '@strapi/strapi/admin';
import { useMessage } from './useMessage';

export function useCopy() {
  const t = useMessage();
  const { toggleNotification } = useNotification();
  return useCallback(
    async (text: string) => {
      try {
        await navigator.clipboard.writeText(text);
        toggleNotification({ type: 'success', message: t('serving.copied') });
      } catch {
        toggleNotification({ type: 'warning', message: t('serving.copy-refused') });
      }
    },
    [t, toggleNotification]
  );
}
