/**
 * Copies text with the admin's own clipboard hook (useClipboard), saying so, or that the browser
 * refused (then the text is there to select). `copied` and `refused` are the messages' ids.
 */
import { useCallback } from 'react';
import { useClipboard, useNotification } from '@strapi/strapi/admin';
import { useMessage, type MessageId } from './useMessage';

export function useCopy({ copied = 'serving.copied', refused = 'serving.copy-refused' }: { copied?: MessageId; refused?: MessageId } = {}) {
  const t = useMessage();
  const { copy } = useClipboard();
  const { toggleNotification } = useNotification();
  return useCallback(
    async (text: string): Promise<boolean> => {
      const done = await copy(text);
      toggleNotification(done ? { type: 'success', message: t(copied) } : { type: 'warning', message: t(refused) });
      return done;
    },
    [copy, copied, refused, t, toggleNotification]
  );
}
