/**
 * Dates, numbers and sizes in the admin's language (the locale Strapi's admin gives react-intl):
 * numbers through Intl, size units from the translations (`size.units`: "o|Ko|Mo|Go|To" in French).
 */
import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import { formatSize } from '../../../shared/format-size';
import { useMessage } from './useMessage';

export function useFormat() {
  const { locale } = useIntl();
  const t = useMessage();
  const units = t('size.units');
  return useMemo(() => {
    const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
    const numbers = new Intl.NumberFormat(locale);
    return {
      /** A dash for none. */
      date: (iso: string | null) => (iso ? dates.format(new Date(iso)) : '—'),
      number: (value: number) => numbers.format(value),
      size: (bytes: number) => formatSize(bytes, { locale, units: units.split('|') }),
    };
  }, [locale, units]);
}
