/**
 * The plugin's strings in the admin's language: `t('usage.title')`, or with values
 * `t('usage.chart', { days })`. English (translations/en.json) is the default message, so a string
 * missing from another language's file still reads right. Messages are plain text: `<img srcset>`
 * is shown as written, not read as a rich-text tag (which failed to format and logged an error).
 */
import { useCallback } from 'react';
import { useIntl } from 'react-intl';
import en from '../translations/en.json';
import { getTranslation } from '../utils/getTranslation';

export type MessageId = keyof typeof en;

export function useMessage() {
  const { formatMessage } = useIntl();
  return useCallback(
    (id: MessageId, values?: Record<string, string | number>) => formatMessage({ id: getTranslation(id), defaultMessage: en[id] }, values, { ignoreTag: true }),
    [formatMessage]
  );
}
