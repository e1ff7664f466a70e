/**
 * Base-1000 units, at most one decimal: "512 B", "52 KB", "17.4 KB", "3 MB". The image JSON's
 * `size_formatted`, the viewer page and the admin's usage page all write sizes this way; the admin
 * in the admin's language (`locale`: "17,4 Ko" with French units).
 */
const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function formatSize(bytes: number, style: { locale?: string; units?: readonly string[] } = {}): string {
  const units = style.units?.length === UNITS.length ? style.units : UNITS;
  let value = bytes;
  let unit = 0;
  while (unit < units.length - 1 && +value.toFixed(1) >= 1000) {
    value /= 1000;
    unit++;
  }
  const number = unit === 0 ? value : +value.toFixed(1);
  return `${style.locale ? new Intl.NumberFormat(style.locale, { maximumFractionDigits: 1 }).format(number) : number} ${units[unit]}`;
}
